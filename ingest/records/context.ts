// What a data record's FlowRecord needs besides its own bytes and template: facts of the IPFIX message that
// carried it. The ingest service keeps one object per session and updates it for each message.

export interface MessageContext {
  /** Export time of the message header, seconds since the Unix epoch. */
  exportTime: number;
  sequenceNumber: number;
  /** When the collector received the message, ms since the Unix epoch. */
  receiveTime: number;
  /**
   * systemInitTimeMilliseconds the exporter announced for this observation domain (usually in an options record),
   * for records timed with flowStart/EndSysUpTime; undefined while unknown.
   */
  systemInitTime: number | undefined;
}
