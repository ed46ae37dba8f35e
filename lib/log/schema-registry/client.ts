// A client of the Confluent Schema Registry REST API (also served by Karapace, Redpanda and Apicurio's
// ccompat API): register a schema under a subject and get its id, and fetch a schema by id. Written on
// node:http(s) rather than fetch, because fetch cannot take a custom CA or a client certificate.
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { FlowaggError, errorMessage } from '../../errors.js';
import { LOG_SCHEMA_REGISTRY } from '../errors.js';
import type { SchemaRegistryConfig } from './config.js';
import { httpFailure, transportFailure, type RegistryFailure } from './failure.js';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
/** A registry answer larger than this is not one. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export class SchemaRegistryClient {
  readonly #config: SchemaRegistryConfig;
  readonly #tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized: boolean } | undefined;

  constructor(config: SchemaRegistryConfig) {
    this.#config = config;
    const tls = config.tls;
    const read = (key: 'ca' | 'cert' | 'key') => {
      const path = tls?.[key];
      if (path === undefined) return {};
      try {
        return { [key]: readFileSync(path) };
      } catch (err) {
        throw new FlowaggError(LOG_SCHEMA_REGISTRY, `log.schemaRegistry.tls.${key}: cannot read ${path}: ${errorMessage(err)}`, { cause: err });
      }
    };
    this.#tls = tls === undefined ? undefined : { ...read('ca'), ...read('cert'), ...read('key'), rejectUnauthorized: tls.rejectUnauthorized };
  }

  /** Registers `schema` under `subject` (idempotent: the same schema gets the same id) and returns its id. */
  async register(subject: string, schema: unknown): Promise<number> {
    const body = await this.#call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, { schema: JSON.stringify(schema) });
    const id = (body as { id?: unknown }).id;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0xffffffff) {
      throw new FlowaggError(LOG_SCHEMA_REGISTRY, `schema registry ${this.#config.url} answered the registration of ${subject} without a schema id: ${JSON.stringify(body).slice(0, 200)}`);
    }
    return id;
  }

  /** The schema registered with `id`, parsed. */
  async schemaById(id: number): Promise<unknown> {
    const body = (await this.#call('GET', `/schemas/ids/${id}`)) as { schema?: unknown };
    if (typeof body.schema !== 'string') throw new FlowaggError(LOG_SCHEMA_REGISTRY, `schema registry ${this.#config.url} has no schema text for id ${id}`);
    return JSON.parse(body.schema);
  }

  #call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path.replace(/^\//, ''), this.#config.url.endsWith('/') ? this.#config.url : `${this.#config.url}/`);
    const auth = this.#config.basicAuth;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = {
      accept: CONTENT_TYPE,
      ...(payload && { 'content-type': CONTENT_TYPE, 'content-length': String(payload.length) }),
      ...(auth && { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` }),
    };
    const where = `schema registry ${url.origin}`;
    return new Promise((resolve, reject) => {
      const fail = ({ message, retriable }: RegistryFailure, context: Record<string, string | number> = {}, cause?: unknown) =>
        reject(new FlowaggError(LOG_SCHEMA_REGISTRY, `${where}: ${method} ${url.pathname}: ${message}`, { context: { url: url.origin, ...context }, cause, retriable }));
      const onResponse = (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            res.destroy();
            fail({ message: `answer larger than ${MAX_RESPONSE_BYTES} bytes`, retriable: false });
          } else chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? {} : JSON.parse(text);
          } catch {
            parsed = { message: text.slice(0, 200) };
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve(parsed);
          fail(httpFailure(status, parsed, this.#config), { status });
        });
        res.on('error', (err) => fail(transportFailure(err, this.#config), {}, err));
      };
      const opts = { method, headers, timeout: this.#config.timeout };
      const req = url.protocol === 'https:' ? httpsRequest(url, { ...opts, ...this.#tls }, onResponse) : httpRequest(url, opts, onResponse);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.#config.timeout} ms`)));
      req.on('error', (err) => fail(transportFailure(err, this.#config), {}, err));
      req.end(payload);
    });
  }
}
