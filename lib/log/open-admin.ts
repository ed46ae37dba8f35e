// The log's admin side for a command (`flowagg offsets`): the log opened directly when nothing holds
// it, else, for an embedded log held by a running flowagg, that process's log API (admin-api.ts).
import { FlowaggError, isFlowaggError } from '../errors.js';
import { readLogApi, remoteAdmin } from './admin-api.js';
import type { LogConfig } from './config.js';
import { LOG_LOCKED } from './errors.js';
import { openLog } from './index.js';
import type { Admin, MessageLog } from './types.js';

export interface AdminSession {
  readonly admin: Admin;
  /** "direct", or the process whose API answers. */
  readonly via: string;
  close(): Promise<void>;
}

export async function openLogAdmin(config: LogConfig, open: (config: LogConfig) => Promise<MessageLog> = openLog): Promise<AdminSession> {
  try {
    const log = await open(config);
    return { admin: log.admin(), via: 'direct', close: () => log.close() };
  } catch (err) {
    if (config.backend !== 'embedded' || !isFlowaggError(err, LOG_LOCKED)) throw err;
    const api = readLogApi(config.embedded.dir);
    if (api === undefined || api.pid !== err.context.pid) {
      throw new FlowaggError(LOG_LOCKED, `${err.message}, and that process serves no log API: stop it, or upgrade it to a flowagg that does`, { context: err.context });
    }
    return { admin: remoteAdmin(api), via: `process ${api.pid} at ${api.url}`, close: async () => {} };
  }
}
