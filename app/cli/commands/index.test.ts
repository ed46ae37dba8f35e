import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commands } from './index.js';

test('every entry of the command list loads the command of its name, once', async () => {
  assert.equal(new Set(commands.map((c) => c.name)).size, commands.length);
  for (const entry of commands) assert.equal((await entry.load()).name, entry.name);
});
