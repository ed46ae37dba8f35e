// The owner's thread of remote.test.ts: an embedded log in a directory, served over the port it was given.
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { openEmbeddedLog } from '../../embedded/index.js';
import { serveLog } from '../serve.js';

const { dir, port } = (workerData as { data: { dir: string; port: MessagePort } }).data;
serveLog(await openEmbeddedLog({ dir }), port);
