import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { canonicalUuid, fnv1Hash32, observationDomainIdOf, uuidBytes } from './cluster-identity.js';

// What Antrea's FlowAggregator computes (genObservationDomainID): Go's hash/fnv.New32 over the
// uuid.UUID's 16 bytes. Run by Go itself, so the vectors do not come from the code under test.
const GO_PROGRAM = `package main

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
)

func main() {
	for _, u := range os.Args[1:] {
		b, err := hex.DecodeString(strings.ReplaceAll(u, "-", ""))
		if err != nil || len(b) != 16 {
			panic(u)
		}
		h := fnv.New32()
		h.Write(b)
		fmt.Println(h.Sum32())
	}
	h := fnv.New32()
	h.Write([]byte("kind-worker"))
	fmt.Println(h.Sum32())
}
`;

function goObservationDomainIds(uuids: readonly string[]): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'fnv-'));
  writeFileSync(join(dir, 'main.go'), GO_PROGRAM);
  let out: string;
  try {
    // /usr/local/go/bin is where the Go toolchain of these machines lives, on PATH or not.
    const env = { ...process.env, GO111MODULE: 'off', PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin` };
    out = execFileSync('go', ['run', join(dir, 'main.go'), ...uuids], { cwd: dir, encoding: 'utf8', env });
  } catch (err) {
    throw new Error(`this test needs Go (hash/fnv computes the reference values): ${(err as Error).message}`);
  }
  return out.trim().split('\n').map(Number);
}

describe('cluster identity', () => {
  it("derives the observation domain id as Antrea does: FNV-1 32-bit of the UUID's 16 bytes", () => {
    const uuids = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '1E6C0A95-2D3B-4F8C-9A7E-5B4C3D2E1F00', ...Array.from({ length: 20 }, () => randomUUID())];
    const expected = goObservationDomainIds(uuids);
    assert.deepEqual(uuids.map(observationDomainIdOf), expected.slice(0, uuids.length));
    // The Agents' own domain id is FNV-1 of the Node name (reference §2.3): the same hash over other bytes.
    assert.equal(fnv1Hash32(new TextEncoder().encode('kind-worker')), expected.at(-1));
  });

  it('accepts UUID text in either case and refuses anything else', () => {
    assert.equal(canonicalUuid(' 1E6C0A95-2D3B-4F8C-9A7E-5B4C3D2E1F00 '), '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00');
    for (const bad of ['', '1e6c0a952d3b4f8c9a7e5b4c3d2e1f00', '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f0', 'g0000000-0000-0000-0000-000000000000']) {
      assert.equal(canonicalUuid(bad), undefined, bad);
    }
    assert.throws(() => uuidBytes('nope'), /"nope" is not a UUID/);
    assert.deepEqual([...uuidBytes('00010203-0405-0607-0809-0a0b0c0d0e0f')], Array.from({ length: 16 }, (_, i) => i));
  });
});
