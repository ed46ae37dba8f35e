import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
const buf = readFileSync('/tmp/eip/x.ipfix');
const s = createSocket('udp4');
let at = 0;
while (at < buf.length) { const len = buf.readUInt16BE(at + 2); await new Promise((r) => s.send(buf.subarray(at, at + len), 19995, '127.0.0.1', r)); at += len; }
s.close();
