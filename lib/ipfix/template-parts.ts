// A message whose template sets hold more template records than one turn of the event loop should learn,
// cut in two valid messages: the first carries the sets up to a template-record boundary within the budget,
// the second (the same header) the rest, to be handled next. Learning templates costs work per record
// (decode, store, evictions), and one 64 KB message holds up to 8,000 of them: handled in one piece it
// blocks a collector for tens of milliseconds, longer on code not yet optimised. Handled a part at a time,
// the sets are the same, in the same order, so the store ends the same; the caller sets the rest's sequence
// number to follow the data records of the first part (RFC 7011 §3.1 counts data records per message).
//
// Anything the walk cannot delimit (a set overrunning the message, a template record cut off) ends the
// cutting: that part goes whole to the decoder, which reports it.
import { MESSAGE_HEADER_LENGTH, putU16, u16 } from './message-header.js';
import { OPTIONS_TEMPLATE_SET_ID, SET_HEADER_LENGTH, TEMPLATE_SET_ID } from './set-header.js';
import { templateRecordEnd } from './template-record.js';

export interface TemplateParts {
  readonly first: Buffer;
  /** What follows the first part, as a message of its own; undefined when the message fits the budget. */
  readonly rest: Buffer | undefined;
}

/** Cuts `message` after at most `budget` bytes of template records (the first record always goes in the first part). */
export function cutAtTemplateBudget(message: Buffer, budget: number): TemplateParts {
  const end = Math.min(message.length, u16(message, 2));
  let templateBytes = 0;
  for (let p = MESSAGE_HEADER_LENGTH; end - p >= SET_HEADER_LENGTH; ) {
    const setId = u16(message, p);
    const setEnd = p + u16(message, p + 2);
    if (setEnd <= p + SET_HEADER_LENGTH || setEnd > end) break;
    if (setId === TEMPLATE_SET_ID || setId === OPTIONS_TEMPLATE_SET_ID) {
      for (let r = p + SET_HEADER_LENGTH; setEnd - r >= 4; ) {
        const recordEnd = templateRecordEnd(message, r, setEnd, setId === OPTIONS_TEMPLATE_SET_ID);
        if (recordEnd < 0) break;
        if (templateBytes > 0 && templateBytes + recordEnd - r > budget) return cut(message, p, r, setEnd, end);
        templateBytes += recordEnd - r;
        r = recordEnd;
      }
    }
    p = setEnd;
  }
  return { first: message, rest: undefined };
}

/** The message cut at offset `at`, inside the set [setStart, setEnd) (or at its start). */
function cut(message: Buffer, setStart: number, at: number, setEnd: number, end: number): TemplateParts {
  const header = message.subarray(0, MESSAGE_HEADER_LENGTH);
  const setId = message.subarray(setStart, setStart + 2);
  const inside = at > setStart + SET_HEADER_LENGTH;
  const first = inside
    ? Buffer.concat([header, message.subarray(MESSAGE_HEADER_LENGTH, setStart), setId, lengthBytes(at - setStart), message.subarray(setStart + SET_HEADER_LENGTH, at)])
    : Buffer.concat([header, message.subarray(MESSAGE_HEADER_LENGTH, setStart)]);
  const rest = inside
    ? Buffer.concat([header, setId, lengthBytes(setEnd - at + SET_HEADER_LENGTH), message.subarray(at, end)])
    : Buffer.concat([header, message.subarray(setStart, end)]);
  putU16(first, 2, first.length);
  putU16(rest, 2, rest.length);
  return { first, rest };
}

function lengthBytes(n: number): Buffer {
  const b = Buffer.alloc(2);
  putU16(b, 0, n);
  return b;
}
