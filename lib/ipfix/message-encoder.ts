// Builds IPFIX messages (RFC 7011 §3) from templates and data records: consecutive records of one
// template share a data set, consecutive templates share a template set, and a message is closed and a
// new one started whenever the next record or template would exceed maxMessageSize. The header's
// sequence number is the count of data records this encoder sent before the message (§3.1), so a
// collector can account for loss.
import { IPFIX_ERR, IpfixError } from './errors.js';
import { MAX_MESSAGE_LENGTH, MESSAGE_HEADER_LENGTH, putU16, writeMessageHeader } from './message-header.js';
import { type EncodeRecord, recordEncoder } from './record-encoder.js';
import { MIN_DATA_SET_ID, OPTIONS_TEMPLATE_SET_ID, SET_HEADER_LENGTH, TEMPLATE_SET_ID } from './set-header.js';
import { templateRecordLength, writeTemplateRecord } from './template-record.js';
import type { EncodableValue, Template } from './types.js';

export interface MessageEncoderOptions {
  observationDomainId: number;
  /** Largest message produced, header included: 65535 (TCP) by default; around 1400 suits UDP paths. */
  maxMessageSize?: number;
  /** Export time in seconds since the Unix epoch, read when a message is finished. */
  exportTime?: () => number;
  /** Sequence number of the first message (records sent before, e.g. after a restart). */
  initialSequenceNumber?: number;
}

const recordWhat = () => 'a data record';

export class MessageEncoder {
  readonly observationDomainId: number;
  readonly maxMessageSize: number;
  readonly #exportTime: () => number;
  readonly #buf: Uint8Array;
  readonly #done: Uint8Array[] = [];
  #sequence: number;
  /** Write position in #buf; 0 = no message open. */
  #pos = 0;
  /** Start of the open set, and its id (0 = none). */
  #setStart = 0;
  #setId = 0;
  #recordsInMessage = 0;
  /** The template of the previous record and its compiled writer (records come in runs). */
  #lastTemplate: Template | undefined;
  #lastEncode: EncodeRecord = () => -1;

  constructor(opts: MessageEncoderOptions) {
    this.observationDomainId = opts.observationDomainId;
    this.maxMessageSize = opts.maxMessageSize ?? MAX_MESSAGE_LENGTH;
    if (this.maxMessageSize < MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH + 4 || this.maxMessageSize > MAX_MESSAGE_LENGTH) {
      throw new IpfixError(IPFIX_ERR.BAD_VALUE, `maxMessageSize ${this.maxMessageSize} is outside 24..65535`);
    }
    this.#exportTime = opts.exportTime ?? (() => Math.floor(Date.now() / 1000));
    this.#sequence = (opts.initialSequenceNumber ?? 0) >>> 0;
    this.#buf = new Uint8Array(this.maxMessageSize);
  }

  /** Sequence number the next message will carry (data records finished so far, mod 2^32). */
  get sequenceNumber(): number {
    return this.#sequence;
  }

  /** Adds a (options) template record; it goes out before any data that follows it. */
  addTemplate(template: Template): void {
    const setId = template.scopeFieldCount > 0 ? OPTIONS_TEMPLATE_SET_ID : TEMPLATE_SET_ID;
    const need = templateRecordLength(template);
    this.#openSet(setId, need, () => `template ${template.id}`);
    this.#pos = writeTemplateRecord(this.#buf, this.#pos, template);
  }

  /** Adds a template withdrawal (TCP only: RFC 7011 §8.1 forbids them over UDP). */
  withdrawTemplate(templateId: number | 'all', options = false): void {
    const setId = options ? OPTIONS_TEMPLATE_SET_ID : TEMPLATE_SET_ID;
    this.#openSet(setId, 4, () => `withdrawal of ${templateId}`);
    putU16(this.#buf, this.#pos, templateId === 'all' ? setId : templateId);
    putU16(this.#buf, this.#pos + 2, 0);
    this.#pos += 4;
  }

  /** Adds one data record of `template`; values[i] is the value of template.fields[i]. */
  addRecord(template: Template, values: readonly EncodableValue[]): void {
    if (template !== this.#lastTemplate) {
      if (template.id < MIN_DATA_SET_ID) throw new IpfixError(IPFIX_ERR.TEMPLATE_ID_RESERVED, `template id ${template.id} is reserved`);
      this.#lastEncode = recordEncoder(template);
      this.#lastTemplate = template;
    }
    const encode = this.#lastEncode;
    // The common case: the record joins the open data set of its template and fits.
    if (this.#setId === template.id) {
      const next = encode(this.#buf, this.#pos, this.maxMessageSize, values);
      if (next >= 0) {
        this.#pos = next;
        this.#recordsInMessage++;
        return;
      }
    }
    for (let attempt = 0; ; attempt++) {
      this.#openSet(template.id, 1, recordWhat);
      const next = encode(this.#buf, this.#pos, this.maxMessageSize, values);
      if (next >= 0) {
        this.#pos = next;
        this.#recordsInMessage++;
        return;
      }
      if (attempt > 0 || this.#isOnlySetInMessage()) {
        throw new IpfixError(IPFIX_ERR.RECORD_TOO_LARGE, `a record of template ${template.id} does not fit in a ${this.maxMessageSize}-byte message`, { templateId: template.id });
      }
      this.#finishMessage();
    }
  }

  /** Finishes the open message and returns every finished message since the last call. */
  flush(): Uint8Array[] {
    this.#finishMessage();
    return this.#done.splice(0);
  }

  #isOnlySetInMessage(): boolean {
    return this.#setStart === MESSAGE_HEADER_LENGTH && this.#pos === MESSAGE_HEADER_LENGTH + SET_HEADER_LENGTH;
  }

  /** Makes sure a set `setId` is open with room for `need` more bytes, starting a new message if not. */
  /** `what` names the item for the error message, built only when there is an error. */
  #openSet(setId: number, need: number, what: () => string): void {
    if (this.#pos === 0) this.#startMessage();
    if (this.#setId === setId && this.#pos + need <= this.maxMessageSize) return;
    if (this.#pos + SET_HEADER_LENGTH + need > this.maxMessageSize) {
      this.#finishMessage();
      this.#startMessage();
      if (this.#pos + SET_HEADER_LENGTH + need > this.maxMessageSize) {
        throw new IpfixError(IPFIX_ERR.RECORD_TOO_LARGE, `${what()} (${need} bytes) does not fit in a ${this.maxMessageSize}-byte message`);
      }
    } else this.#closeSet();
    this.#setStart = this.#pos;
    this.#setId = setId;
    this.#pos += SET_HEADER_LENGTH;
  }

  #startMessage(): void {
    this.#pos = MESSAGE_HEADER_LENGTH;
    this.#setId = 0;
    this.#recordsInMessage = 0;
  }

  #closeSet(): void {
    if (this.#setId === 0) return;
    if (this.#pos === this.#setStart + SET_HEADER_LENGTH) {
      this.#pos = this.#setStart; // an empty set is dropped, not sent
    } else {
      putU16(this.#buf, this.#setStart, this.#setId);
      putU16(this.#buf, this.#setStart + 2, this.#pos - this.#setStart);
    }
    this.#setId = 0;
  }

  #finishMessage(): void {
    if (this.#pos === 0) return;
    this.#closeSet();
    if (this.#pos > MESSAGE_HEADER_LENGTH) {
      writeMessageHeader(this.#buf, 0, {
        length: this.#pos,
        exportTime: this.#exportTime(),
        sequenceNumber: this.#sequence,
        observationDomainId: this.observationDomainId,
      });
      this.#done.push(this.#buf.slice(0, this.#pos));
      this.#sequence = (this.#sequence + this.#recordsInMessage) >>> 0;
    }
    this.#pos = 0;
  }
}
