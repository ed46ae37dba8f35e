// Transcoders shared by every session, one per template layout (the element, length and scope of each field), in
// a bounded cache. A compiled transcoder costs tens of kilobytes and milliseconds of compilation, and which
// layouts exist is the exporters' choice, so neither may grow with what they send:
// - a layout is transcoded by the interpreted builder for its first `compileAfterRecords` records, and compiled
//   only then, so compiling costs at most a fixed share of the bytes that carried those records;
// - at most `maxLayouts` layouts are cached; beyond, the least recently used one is evicted (counted) and falls
//   back to the interpreted builder until it has carried records again;
// - a template redefined back and forth between two layouts finds both here: nothing is compiled again.
// Lookups by template object go through a WeakMap, so the layout key is computed once per template.
import type { Template } from '../../lib/ipfix/types.js';
import { LruMap } from '../../lib/lru-map.js';
import type { AvroFraming } from '../../schemas/avro.js';
import { compileTranscoder, interpretedTranscoder, type Transcoder } from './transcode.js';

export interface TranscoderCacheOptions {
  readonly maxLayouts: number;
  readonly compileAfterRecords: number;
  /** A compiled layout was evicted to keep the bound. */
  readonly onEvict?: () => void;
  /** A layout was compiled. */
  readonly onCompile?: () => void;
  /** How FlowRecords are framed (log.valueFormat); single-object by default. */
  readonly framing?: AvroFraming;
}

/** The identity of a layout: everything a transcoder depends on, nothing else (not the id, not the domain). */
export function layoutKey(template: Template): string {
  let key = `${template.scopeFieldCount}`;
  for (const f of template.fields) key += `|${f.ie.pen}.${f.ie.id}.${f.length}`;
  return key;
}

class Layout implements Transcoder {
  readonly plan: Transcoder['plan'];
  readonly minLength: number;
  readonly fixedLength: number | undefined;
  readonly #template: Template;
  readonly #interpreted: Transcoder;
  #compiled: Transcoder | undefined;
  #records = 0;

  constructor(
    readonly key: string,
    template: Template,
    readonly cache: TranscoderCache,
    readonly compileAfter: number,
    readonly framing: AvroFraming | undefined,
  ) {
    this.#template = template;
    this.#interpreted = interpretedTranscoder(template, framing);
    this.plan = this.#interpreted.plan;
    this.minLength = this.#interpreted.minLength;
    this.fixedLength = this.#interpreted.fixedLength;
  }

  get compiled(): boolean {
    return this.#compiled !== undefined;
  }

  transcode(...args: Parameters<Transcoder['transcode']>): number {
    if (this.#compiled !== undefined) return this.#compiled.transcode(...args);
    if (++this.#records > this.compileAfter && this.cache.holds(this)) {
      this.#compiled = compileTranscoder(this.#template, this.framing);
      this.cache.compiled();
    }
    return this.#interpreted.transcode(...args);
  }

  /** Evicted from the cache: back to the interpreted builder, so that the compiled code can be collected. */
  demote(): void {
    this.#compiled = undefined;
    this.#records = 0;
  }
}

export class TranscoderCache {
  readonly #opts: TranscoderCacheOptions;
  /** Cached layouts, least recently used first. */
  readonly #layouts = new LruMap<string, Layout>();
  readonly #byTemplate = new WeakMap<Template, Layout>();
  evictions = 0;
  compilations = 0;

  constructor(opts: TranscoderCacheOptions) {
    this.#opts = opts;
  }

  get size(): number {
    return this.#layouts.size;
  }

  /** The transcoder of a template's layout; a use, for the eviction order. */
  get(template: Template): Transcoder {
    let layout = this.#byTemplate.get(template);
    // After an eviction another template of the layout may have brought a new entry: one entry per layout.
    const key = layout?.key ?? layoutKey(template);
    const cached = this.#layouts.get(key);
    if (layout === undefined || (cached !== undefined && cached !== layout)) {
      layout = cached ?? new Layout(key, template, this, this.#opts.compileAfterRecords, this.#opts.framing);
      this.#byTemplate.set(template, layout);
    }
    if (!this.#layouts.touch(layout.key)) {
      if (this.#layouts.size >= this.#opts.maxLayouts) this.#evictOldest();
      this.#layouts.set(layout.key, layout);
    }
    return layout;
  }

  /** Counts a compilation. */
  compiled(): void {
    this.compilations++;
    this.#opts.onCompile?.();
  }

  /** Whether a layout is in the cache (only cached layouts are compiled). */
  holds(layout: Layout): boolean {
    return this.#layouts.get(layout.key) === layout;
  }

  #evictOldest(): void {
    const oldest = this.#layouts.shift()![1];
    if (oldest.compiled) {
      this.evictions++;
      this.#opts.onEvict?.();
    }
    oldest.demote();
  }
}
