#!/usr/bin/env python3
"""Reads Confluent-framed Avro values with fastavro, an Avro implementation independent of flowagg's.

Usage: read-confluent.py (--registry URL [--user USER] [--ca FILE] [--cert FILE --key FILE] | --schema FILE)
                         < hex values, one per line
Each value must start with the Confluent magic byte 0 and a 4-byte big-endian schema id. With
--registry the writer schema is fetched by that id (GET /schemas/ids/<id>), with basic auth when
--user is given (the password in READ_CONFLUENT_PASSWORD), over TLS verified with --ca and with the
client certificate --cert/--key; with --schema every id is taken to be that schema. Prints one JSON
object per value: {"schemaId": n, "record": {...}}, bytes as hex, logical types as their underlying values.
"""
import argparse
import base64
import io
import json
import os
import ssl
import struct
import sys
import urllib.request

import fastavro
import fastavro.read

# Logical types as they are on the wire (timestamp-millis as a long), the way flowagg reads them.
fastavro.read.LOGICAL_READERS.clear()


def fetch_schema(args, schema_id: int) -> str:
    request = urllib.request.Request(f"{args.registry.rstrip('/')}/schemas/ids/{schema_id}")
    if args.user:
        credentials = f"{args.user}:{os.environ.get('READ_CONFLUENT_PASSWORD', '')}".encode()
        request.add_header("Authorization", "Basic " + base64.b64encode(credentials).decode())
    context = None
    if args.registry.startswith("https:"):
        context = ssl.create_default_context(cafile=args.ca)
        if args.cert:
            context.load_cert_chain(args.cert, args.key)
    with urllib.request.urlopen(request, context=context) as res:
        return json.load(res)["schema"]


def main() -> None:
    parser = argparse.ArgumentParser()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--registry")
    source.add_argument("--schema")
    parser.add_argument("--user")
    parser.add_argument("--ca")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    schemas = {}

    def schema_for(schema_id: int):
        if schema_id not in schemas:
            if args.registry:
                text = fetch_schema(args, schema_id)
            else:
                with open(args.schema, encoding="utf-8") as f:
                    text = f.read()
            schemas[schema_id] = fastavro.parse_schema(json.loads(text))
        return schemas[schema_id]

    def plain(v):
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    for line in sys.stdin:
        raw = bytes.fromhex(line.strip())
        if raw[0] != 0:
            sys.exit(f"not Confluent framing: first byte {raw[0]}")
        (schema_id,) = struct.unpack(">I", raw[1:5])
        body = io.BytesIO(raw[5:])
        record = fastavro.schemaless_reader(body, schema_for(schema_id))
        if body.tell() != len(raw) - 5:
            sys.exit(f"{len(raw) - 5 - body.tell()} bytes left after the record")
        print(json.dumps({"schemaId": schema_id, "record": plain(record)}))


main()
