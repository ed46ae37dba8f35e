// The embedded backend of the message log (see embedded-log.ts).
export { type EmbeddedLog, openEmbeddedLog } from './embedded-log.js';
