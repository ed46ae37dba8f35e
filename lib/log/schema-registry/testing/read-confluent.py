#!/usr/bin/env python3
"""Reads Confluent-framed Avro values with fastavro, an Avro implementation independent of flowagg's.

Usage: read-confluent.py (--registry URL | --schema FILE)  < hex values, one per line
Each value must start with the Confluent magic byte 0 and a 4-byte big-endian schema id. With
--registry the writer schema is fetched by that id (GET /schemas/ids/<id>); with --schema every id is
taken to be that schema. Prints one JSON object per value: {"schemaId": n, "record": {...}}, bytes as
hex, logical types as their underlying values.
"""
import io
import json
import struct
import sys
import urllib.request

import fastavro
import fastavro.read

# Logical types as they are on the wire (timestamp-millis as a long), the way flowagg reads them.
fastavro.read.LOGICAL_READERS.clear()


def main() -> None:
    mode, source = sys.argv[1], sys.argv[2]
    schemas = {}

    def schema_for(schema_id: int):
        if schema_id not in schemas:
            if mode == "--registry":
                with urllib.request.urlopen(f"{source.rstrip('/')}/schemas/ids/{schema_id}") as res:
                    text = json.load(res)["schema"]
            else:
                with open(source, encoding="utf-8") as f:
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
