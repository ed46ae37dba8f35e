// The walk over the sets of a message, shared by IPFIX (RFC 7011 §3.3: Sets) and NetFlow v9 (RFC 3954 §5:
// FlowSets), which differ only in their header, in which set ids hold templates and in how a template record
// is laid out. Each set is a 4-byte header (id, length) and its records; templates are learned into the
// session's store as they come, so a data set may use a template defined earlier in the same message. A bad
// set is reported in `errors` and skipped; a set whose length cannot be trusted ends the walk.
import { IPFIX_ERR, IpfixError } from './errors.js';
import { u16 } from './message-header.js';
import { SET_HEADER_LENGTH, type SetKind } from './set-header.js';
import type { TemplateSetContent } from './template-record.js';
import type { TemplateStore } from './template-store.js';
import type { MessageHeader, Template, TemplateWithdrawal } from './types.js';

/** What scanning a message yields besides its data sets. */
export interface ScannedMessage {
  header: MessageHeader;
  /** Templates learned or redefined in this message. */
  templates: Template[];
  /** Withdrawals that took effect (none over UDP, where RFC 7011 §8.4 says to ignore them). */
  withdrawals: TemplateWithdrawal[];
  /** Set- and record-level problems; the rest of the message was still decoded. */
  errors: IpfixError[];
}

/**
 * Receives each data set whose template is known, in message order: its records are in
 * buf[start..end) (padding included). Problems found in them go to `errors`.
 */
export type DataSetVisitor = (template: Template, buf: Buffer, start: number, end: number, setIndex: number, errors: IpfixError[]) => void;

/** What tells one protocol's sets apart. */
export interface SetDialect {
  readonly kind: (setId: number) => SetKind;
  /** Decodes the records of a (options) template set in b[start..end), the bytes after the set header. */
  readonly templates: (b: Uint8Array, start: number, end: number, observationDomainId: number, options: boolean, setIndex: number) => TemplateSetContent;
  /** Whether fewer than 4 zero bytes after the last set are padding rather than a cut-off set header. */
  readonly trailingPadding: boolean;
}

/** Walks the sets in buf[start..end), filling `out` and handing data sets of known templates to `visit`. */
export function walkSets(buf: Buffer, start: number, end: number, store: TemplateStore, dialect: SetDialect, visit: DataSetVisitor, out: ScannedMessage): void {
  const odid = out.header.observationDomainId;
  let p = start;
  for (let setIndex = 0; p < end; setIndex++) {
    if (end - p < SET_HEADER_LENGTH) {
      if (dialect.trailingPadding && allZero(buf, p, end)) break;
      out.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `${end - p} bytes at the end of the message are too few for a set header`, { offset: p, observationDomainId: odid, setIndex }));
      break;
    }
    const setId = u16(buf, p);
    const setLength = u16(buf, p + 2);
    const ctx = { offset: p, observationDomainId: odid, setIndex };
    if (setLength < SET_HEADER_LENGTH) {
      // A zero-length set would never advance; nothing after it can be located.
      out.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `set ${setId} has length ${setLength}, below its 4-byte header`, ctx));
      break;
    }
    if (p + setLength > end) {
      out.errors.push(new IpfixError(IPFIX_ERR.SET_OVERRUNS_MESSAGE, `set ${setId} of ${setLength} bytes overruns the message by ${p + setLength - end} bytes`, ctx));
      break;
    }
    const recordsStart = p + SET_HEADER_LENGTH;
    const setEnd = p + setLength;
    const kind = dialect.kind(setId);
    if (kind === 'template' || kind === 'optionsTemplate') {
      learnTemplates(dialect.templates(buf, recordsStart, setEnd, odid, kind === 'optionsTemplate', setIndex), store, odid, kind, out);
    } else if (kind === 'data') {
      const template = store.get(odid, setId);
      if (template === undefined) {
        out.errors.push(new IpfixError(IPFIX_ERR.UNKNOWN_TEMPLATE, `data set for unknown template ${setId} in domain ${odid}; set skipped`, { ...ctx, templateId: setId, setLength }));
      } else {
        visit(template, buf, recordsStart, setEnd, setIndex, out.errors);
      }
    } else {
      out.errors.push(new IpfixError(IPFIX_ERR.RESERVED_SET_ID, `set id ${setId} is reserved; set skipped`, { ...ctx, setLength }));
    }
    p = setEnd;
  }
}

function learnTemplates(content: TemplateSetContent, store: TemplateStore, odid: number, kind: 'template' | 'optionsTemplate', out: ScannedMessage): void {
  out.errors.push(...content.errors);
  for (const t of content.templates) out.templates.push(store.set(t));
  for (const templateId of content.withdrawals) {
    if (store.withdraw(odid, templateId, kind)) out.withdrawals.push({ observationDomainId: odid, templateId });
  }
}

export function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}
