// Every error code flowagg throws, what it means and what to do about it: the one list an operator reads
// (docs/errors.md is rendered from it by scripts/errors-doc.ts). The codes themselves stay declared next
// to the code that throws them; scripts/errors-doc.test.ts fails when one exists that this list does
// not describe, or when this list describes one that no longer exists. Codes of test doubles
// (FLOWAGG_ERR_TEST_*) and of the test harness are not flowagg's and are not listed.
import type { ErrorCode } from './errors.js';

export interface CodeEntry {
  readonly meaning: string;
  readonly action: string;
}

export interface CatalogueArea {
  readonly area: string;
  readonly codes: Readonly<Record<ErrorCode, CodeEntry>>;
}

/** Said of the lifecycle guards of every service: a call out of order is a bug of the caller. */
const LIFECYCLE_BUG = 'A bug in the program that called it: report it with the log line, which names the method and the state.';

export const ERROR_CATALOGUE: readonly CatalogueArea[] = [
  {
    area: 'Configuration',
    codes: {
      FLOWAGG_ERR_CONFIG_INVALID: {
        meaning: 'The configuration file, an FLOWAGG_CFG_* variable or a flag holds values that cannot work; the message lists every problem with its key and where it was set.',
        action: 'Fix the keys named (`flowagg config check FILE` shows the same report). At start the service exits 1; on a hot reload it runs on with the previous configuration.',
      },
    },
  },
  {
    area: 'Services',
    codes: {
      FLOWAGG_ERR_INGEST_STATE: { meaning: 'An ingest method called in a lifecycle state that does not allow it (start twice, start after stop).', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_PROCESSOR_STATE: {
        meaning: 'A processor method called in a state that does not allow it, a batch for a partition whose task is being opened or rebuilt (delivered again), or processor.state and flows.raw with different partition counts.',
        action: 'For the partition counts, recreate processor.state or set log.topics.flowsRawPartitions as the message says; a batch without a task is retried by itself. Otherwise, a bug: report it with the log line.',
      },
      FLOWAGG_ERR_EXPORT_STATE: { meaning: 'An export runner or exporter method called in a state that does not allow it.', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_FLOWSTREAM_STATE: { meaning: 'A FlowStreamService method called in a state that does not allow it (start twice, say).', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_THREAD_STATE: { meaning: 'A method of a service on a worker thread (the processor with processor.threads) called in a state that does not allow it.', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_THREAD_EXITED: {
        meaning: "A service's worker thread ended without being stopped (an uncaught error or out of memory in it): the service failed with it; what it had not committed is processed again.",
        action: 'Its supervisor starts a new thread by itself. If it keeps happening, the log line before it names the error in the thread; set processor.threads: 0 to run the processor in the main thread meanwhile.',
      },
      FLOWAGG_ERR_EXPLORER_STATE: { meaning: 'A flow explorer method called in a state that does not allow it (start twice, say).', action: LIFECYCLE_BUG },
    },
  },
  {
    area: 'Ingest',
    codes: {
      FLOWAGG_ERR_INGEST_FRAMING: {
        meaning: 'A TCP or TLS byte stream that is not a sequence of IPFIX messages (bad version or length); the session is closed.',
        action: 'Check that the exporter speaks IPFIX (version 10) on that port, not NetFlow v5/v9 or another protocol; flowagg_ingest_decode_errors_total counts these.',
      },
      FLOWAGG_ERR_INGEST_LISTEN: {
        meaning: 'A listener could not bind its address (port in use, no permission for a port below 1024).',
        action: 'Free the port or set ingest.port / ingest.tlsPort / ingest.host; in a container, check that nothing else binds it.',
      },
      FLOWAGG_ERR_INGEST_TEMPLATE_RECORD: {
        meaning: 'A record of the ipfix.templates topic that cannot be read; it is skipped.',
        action: 'Nothing, unless it repeats: then something other than flowagg writes to ipfix.templates (check log.topics.templates).',
      },
      FLOWAGG_ERR_GRPC_LISTEN: { meaning: "The gRPC collector (Antrea's agents' gRPC export) could not bind its address.", action: 'Free the port or set ingest.grpc.port.' },
      FLOWAGG_ERR_GRPC_MALFORMED: {
        meaning: 'A gRPC message that is not valid protobuf for its type (truncated, a length beyond the message, a wrong wire type).',
        action: "Check that the client is an Antrea agent of a supported version; the call is refused and counted, the others go on.",
      },
      FLOWAGG_ERR_GRPC_INVALID_FLOW: {
        meaning: 'A well-formed Flow whose values cannot be a flow (an address of the wrong length for its family); it is skipped and counted.',
        action: 'Report it to the sender: the agent produced an impossible record.',
      },
    },
  },
  {
    area: 'TLS certificates',
    codes: {
      FLOWAGG_ERR_TLS_INVALID_MATERIAL: {
        meaning: 'Certificates given as files (ingest.tls mode "files") that cannot be read or do not belong together (key not of the certificate, CA not its issuer).',
        action: 'Check the paths and that the certificate, its key and the CA match (`flowagg certs` can make a set).',
      },
      FLOWAGG_ERR_TLS_STORE: {
        meaning: 'The certificate store (the Kubernetes API or the directory) failed; retriable.',
        action: 'Retried by itself; if it persists, check the service account may read and write the Secret, or the directory is writable.',
      },
      FLOWAGG_ERR_TLS_CONFLICT: {
        meaning: 'Other replicas kept winning the race to write a certificate; retriable.',
        action: 'Retried by itself; if it persists, check that the replicas agree on ingest.tls (same Secret name, same validity).',
      },
      FLOWAGG_ERR_TLS_NOT_STARTED: { meaning: 'Certificates asked for before the certificate source produced any.', action: LIFECYCLE_BUG },
    },
  },
  {
    area: 'API server (port 10348)',
    codes: {
      FLOWAGG_ERR_API_LISTEN: {
        meaning: 'The API server could not bind apiServer.bindAddress and apiServer.apiPort (port in use, an address not on this machine).',
        action: 'Free the port or set apiServer.apiPort / apiServer.bindAddress.',
      },
      FLOWAGG_ERR_API_TOKEN_FILE: {
        meaning: 'The loopback token could not be written to apiServer.loopbackTokenFile (its directory cannot be made, or is not writable).',
        action: 'In a Pod, mount a writable volume at /var/run/antrea (the Helm chart does); elsewhere, set apiServer.loopbackTokenFile to a path this user may write.',
      },
      FLOWAGG_ERR_API_REQUEST: {
        meaning: 'A command (flowagg get, flowagg offsets) could not reach the API of a running flowagg: refused, timed out, or a certificate it does not trust.',
        action: 'Check flowagg runs and listens where the command looks (--server, apiServer.apiPort); for a certificate of a server elsewhere, give --ca-cert. Retriable.',
      },
    },
  },
  {
    area: 'IPFIX and NetFlow decoding, IPFIX encoding',
    codes: {
      FLOWAGG_ERR_IPFIX_TRUNCATED_HEADER: { meaning: 'A message of fewer than 16 bytes: no IPFIX message header.', action: 'Check the exporter sends IPFIX; over UDP, a datagram cut by an MTU or a too small ingest.udp.maxDatagramBytes.' },
      FLOWAGG_ERR_IPFIX_BAD_VERSION: {
        meaning: 'A message whose version field is not 10 on an IPFIX port (NetFlow v5 or v9, or not IPFIX at all), or neither 5, 9 nor 10 on the NetFlow port.',
        action: 'Send NetFlow v9 or v5 to ingest.netflow.port (with ingest.netflow.enabled: true), IPFIX to either; anything else is not a flow export.',
      },
      FLOWAGG_ERR_IPFIX_LENGTH_MISMATCH: { meaning: "The header's length field disagrees with the bytes received (or is below 16).", action: 'Over UDP: raise ingest.udp.maxDatagramBytes or lower the exporter\'s message size; otherwise the exporter is faulty.' },
      FLOWAGG_ERR_IPFIX_SET_OVERRUNS_MESSAGE: { meaning: 'A set header announces more bytes than the message has left; the rest of the message is skipped.', action: 'The exporter is faulty or the message was corrupted in transit: report it with a capture (`flowagg decode`).' },
      FLOWAGG_ERR_IPFIX_SHORT_SET: { meaning: 'A set length below 4, or a set header cut off.', action: 'As for SET_OVERRUNS_MESSAGE: a faulty exporter or corruption.' },
      FLOWAGG_ERR_IPFIX_RESERVED_SET_ID: {
        meaning: "A set id of 0, 1 or 4 to 255 in IPFIX (0 and 1 are NetFlow v9's), or of 2 to 255 in a NetFlow v9 packet; the set is skipped.",
        action: 'In IPFIX: configure the exporter for IPFIX rather than NetFlow v9 (or send v9 to the NetFlow port). In v9: a faulty exporter; report it with a capture (`flowagg decode`).',
      },
      FLOWAGG_ERR_NETFLOW_TRUNCATED_HEADER: { meaning: 'A NetFlow packet shorter than its header (20 bytes for v9, 24 for v5).', action: 'A datagram cut by an MTU or a too small ingest.udp.maxDatagramBytes, or not NetFlow: check what sends to the NetFlow port.' },
      FLOWAGG_ERR_NETFLOW_BAD_COUNT: { meaning: 'A NetFlow v5 packet whose record count is 0, above 30, or more than its bytes hold; the whole records it holds are still taken.', action: 'A faulty exporter, or a packet cut in transit: report it with a capture (`flowagg decode`).' },
      FLOWAGG_ERR_NETFLOW_EMPTY_TEMPLATE: { meaning: 'A NetFlow v9 template record with no fields (v9 has no withdrawals); it is skipped.', action: 'A faulty exporter: report it with a capture (`flowagg decode`).' },
      FLOWAGG_ERR_IPFIX_UNKNOWN_TEMPLATE: {
        meaning: 'A data set for a template this session and observation domain does not know (yet); it is skipped and counted.',
        action: 'Normal for a moment after a restart over UDP, until the exporter resends its templates; if it lasts, shorten the exporter\'s template refresh interval.',
      },
      FLOWAGG_ERR_IPFIX_TEMPLATE_ID_RESERVED: { meaning: 'A template record with an id below 256.', action: 'The exporter is faulty: report it.' },
      FLOWAGG_ERR_IPFIX_TRUNCATED_TEMPLATE: { meaning: 'A template record cut off by the end of its set.', action: 'The exporter is faulty or the message was corrupted: report it with a capture.' },
      FLOWAGG_ERR_IPFIX_BAD_SCOPE_COUNT: { meaning: 'An options template whose scope field count is 0 or exceeds its field count.', action: 'The exporter is faulty: report it.' },
      FLOWAGG_ERR_IPFIX_BAD_WITHDRAWAL: { meaning: 'A template withdrawal that is not allowed (an options template id in a template set).', action: 'The exporter is faulty: report it.' },
      FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH: {
        meaning: "A data set that is not a whole number of its template's records plus padding: sent with another layout than the template known here, or corrupt. The whole set is skipped.",
        action: 'Usually a template redefined by an exporter that restarted, until the new template arrives; if it lasts, check that two exporters do not share an address and observation domain.',
      },
      FLOWAGG_ERR_IPFIX_TRUNCATED_RECORD: { meaning: 'A data record cut off by the end of its set.', action: 'The exporter is faulty or the message was corrupted: report it with a capture.' },
      FLOWAGG_ERR_IPFIX_BAD_FIELD_LENGTH: { meaning: 'A field length its abstract type cannot have (an ipv4Address in 3 bytes, an unsigned32 in 5).', action: 'The template is wrong: report it to the exporter\'s vendor.' },
      FLOWAGG_ERR_IPFIX_BAD_BOOLEAN: { meaning: 'A boolean other than 1 (true) or 2 (false).', action: 'The exporter is faulty: report it.' },
      FLOWAGG_ERR_IPFIX_BAD_LIST: { meaning: 'An RFC 6313 structured-data list that is malformed or nested too deep.', action: 'The exporter is faulty: report it with a capture.' },
      FLOWAGG_ERR_IPFIX_BAD_VALUE: { meaning: 'Encoding: a value that does not fit its field (type or range).', action: 'A bug in what produced the record (the IPFIX exporter\'s mapping): report it.' },
      FLOWAGG_ERR_IPFIX_RECORD_TOO_LARGE: { meaning: 'Encoding: one record or template larger than the maximum message size.', action: 'Raise the IPFIX exporter\'s message size, or leave out long fields (labels).' },
      FLOWAGG_ERR_IPFIX_UNKNOWN_ELEMENT: { meaning: 'An information element name the IANA/Antrea registry does not have.', action: 'Check the spelling of the element named (in a template or a filter).' },
    },
  },
  {
    area: 'Captures (flowagg decode, replays)',
    codes: {
      FLOWAGG_ERR_CAPTURE_UNKNOWN_FORMAT: { meaning: 'A file that starts with none of the known magic numbers (pcap, pcapng, RFC 5655 IPFIX file).', action: 'Give a pcap, pcapng or IPFIX file; convert others with editcap.' },
      FLOWAGG_ERR_CAPTURE_TRUNCATED: { meaning: 'A header or block cut off by the end of the file.', action: 'The capture was cut short (a capture still being written, a partial copy): use a complete file.' },
      FLOWAGG_ERR_CAPTURE_MALFORMED: { meaning: 'A capture structure that cannot be right (a block length below its minimum, an unknown byte order).', action: 'The file is corrupt: capture again.' },
    },
  },
  {
    area: 'FlowRecord schemas',
    codes: {
      FLOWAGG_ERR_SCHEMA_BAD_FRAMING: {
        meaning: 'A value that starts with neither the Avro single-object marker (C3 01) nor the Confluent magic byte (00), or is cut off.',
        action: 'Something other than flowagg writes to the topic, or log.valueFormat differs between the writers and the readers: make them agree.',
      },
      FLOWAGG_ERR_SCHEMA_UNKNOWN_WRITER: {
        meaning: 'A framed value whose writer schema (fingerprint or Confluent id) the reader does not know.',
        action: 'A newer flowagg wrote it: upgrade the readers first; with a schema registry, check log.schemaRegistry points at the one the writers use.',
      },
      FLOWAGG_ERR_SCHEMA_BAD_BODY: { meaning: 'An Avro body that does not decode with its writer schema (truncated, trailing bytes, invalid values).', action: 'The record is corrupt or written with another schema under the same id: report it with the topic, partition and offset.' },
      FLOWAGG_ERR_SCHEMA_INCOMPATIBLE: { meaning: 'A writer schema the reader schema cannot resolve (a reader field without default that the writer lacks, incompatible types).', action: 'Upgrade the readers to a version that knows the writer schema.' },
      FLOWAGG_ERR_SCHEMA_BAD_MAPPING: { meaning: 'A schema file whose IPFIX mapping disagrees with the information element registry.', action: 'A build problem: run `npm run generate` and report it if it persists.' },
    },
  },
  {
    area: 'The message log',
    codes: {
      FLOWAGG_ERR_LOG_CLOSED: { meaning: 'A log, producer or consumer used after it was closed.', action: 'Seen during shutdown it is harmless; otherwise a bug: report it.' },
      FLOWAGG_ERR_LOG_UNKNOWN_TOPIC: { meaning: 'A topic that was never created.', action: 'Check log.topics.*; the services create their topics at start, so start them (or `flowagg run`) first.' },
      FLOWAGG_ERR_LOG_PARTITION_OUT_OF_RANGE: { meaning: 'A partition number outside the topic\'s partitions.', action: 'Check the partition given to `flowagg offsets`; otherwise a bug.' },
      FLOWAGG_ERR_LOG_INVALID_ARGUMENT: { meaning: 'An argument that can never be valid (a bad topic name, a value that is not bytes).', action: 'Check topic names in log.topics; otherwise a bug: report it.' },
      FLOWAGG_ERR_LOG_KEY_REQUIRED: { meaning: 'A record without a key sent to a compacted topic.', action: 'A bug: report it.' },
      FLOWAGG_ERR_LOG_RECORD_REJECTED: {
        meaning: 'The log refuses the records themselves (Kafka: too large, invalid or corrupt); they are dropped and counted, as sending them again cannot succeed.',
        action: "Raise the topic's max.message.bytes (and the broker's), or lower ingest's batch size.",
      },
      FLOWAGG_ERR_LOG_CONSUMER_STATE: { meaning: 'A consumer method called in a state that does not allow it (run twice, seek on an unassigned partition).', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_LOG_STALE_BATCH: {
        meaning: 'A batch of a consumer on a worker thread was fetched before that thread moved the partition (a seek); it is refused and the partition read again from where the seek moved it.',
        action: 'Nothing: a warning now and then after a partition was rebuilt or reassigned. Many in a row, for one partition, are a bug to report with the log lines.',
      },
      FLOWAGG_ERR_LOG_TXN_STATE: { meaning: 'A transaction or transactional producer method called in a state that does not allow it.', action: LIFECYCLE_BUG },
      FLOWAGG_ERR_LOG_PRODUCER_FENCED: {
        meaning: 'A transactional producer replaced by a newer one with the same id: another processor instance took the partition over.',
        action: 'Normal during a rebalance or a rolling update: the partition is left to its new owner. If it repeats, check that two deployments do not share processor.groupId.',
      },
      FLOWAGG_ERR_LOG_GROUP_ACTIVE: { meaning: "Resetting a consumer group's offsets while the group has members.", action: 'Stop the services of that group first (kafka-consumer-groups refuses the same way).' },
      FLOWAGG_ERR_LOG_API_FAILED: {
        meaning: 'The log API of the process holding an embedded log refused a request or could not be reached (`flowagg offsets` while `flowagg run` holds the log).',
        action: 'Check that process is running and that its apiServer port is reachable from here; retriable.',
      },
      FLOWAGG_ERR_LOG_SCHEMA_REGISTRY: {
        meaning: 'The schema registry refused a request (an incompatible schema, bad credentials, a certificate that does not verify) or could not be reached.',
        action: 'Follow the message (it names the setting: log.schemaRegistry.url, .tls.ca, credentials); an unreachable registry is retried, but stops a start.',
      },
      FLOWAGG_ERR_LOG_CORRUPT: {
        meaning: 'Embedded log: a closed segment that fails its checks (only the active segment may have a torn tail, which recovery cuts).',
        action: 'The disk or the directory was damaged: restore log.embedded.dir from a backup, or move the damaged segment away and accept its loss.',
      },
      FLOWAGG_ERR_LOG_IO: { meaning: 'Embedded log: a failed read, write or fsync; the partition refuses further appends.', action: 'Check the disk (full, read-only, failing) under log.embedded.dir, then restart.' },
      FLOWAGG_ERR_LOG_LOCKED: { meaning: "Embedded log: another process holds the log directory's lock.", action: 'Stop the other flowagg using log.embedded.dir, or give this one another directory; `flowagg offsets` goes through the holder\'s API.' },
      FLOWAGG_ERR_LOG_LOCK_UNAVAILABLE: { meaning: 'Embedded log: the directory lock cannot be taken at all (flock(1) missing or failing).', action: 'Install util-linux (flock) or use a file system that supports locks.' },
      FLOWAGG_ERR_LOG_KAFKA_UNREACHABLE: { meaning: 'No Kafka broker could be reached, or the connection failed; retriable.', action: 'Check log.kafka.brokers, the network and TLS settings; retried at runtime, a start gives up after its retries.' },
      FLOWAGG_ERR_LOG_KAFKA_AUTH: { meaning: 'SASL authentication failed: wrong mechanism, user or password; not retriable.', action: 'Fix log.kafka.sasl.' },
      FLOWAGG_ERR_LOG_KAFKA_BROKER: { meaning: "The broker refused a request; context.brokerError holds Kafka's error name.", action: "Look the brokerError up in Kafka's documentation (authorization, topic configuration, quotas); retriable ones are retried." },
      FLOWAGG_ERR_LOG_KAFKA_CONFIG: { meaning: 'The log.kafka configuration cannot be used (a TLS file cannot be read).', action: 'Fix the file paths or permissions named.' },
    },
  },
  {
    area: 'Processor',
    codes: {
      FLOWAGG_ERR_PROCESSOR_BAD_RECORD: { meaning: 'An input record the processor cannot use (not a FlowRecord, no flow times); it is counted and skipped.', action: 'Check what else writes to flows.raw; flowagg_processor_bad_records_total counts them by reason.' },
      FLOWAGG_ERR_PROCESSOR_STATE_CORRUPT: {
        meaning: 'A changelog record (processor.state) that does not decode, or restored state that contradicts itself.',
        action: 'Report it with the partition and offset; to go on, delete processor.state and reset the group\'s offsets (`flowagg offsets reset`): the partitions start from empty state.',
      },
      FLOWAGG_ERR_PROCESSOR_FLOW_STATE: { meaning: 'A flow lifecycle transition the transition table does not allow.', action: 'A bug, never caused by input: report it with the log line.' },
      FLOWAGG_ERR_PROCESSOR_FINAL_COMMIT: {
        meaning: 'On stop, the final commit of some partitions failed: what they processed since their last commit is processed again at the next start (no loss, no duplicate: the commit is a transaction).',
        action: 'Nothing to repair; check the log was reachable at shutdown (the partitions are named in the log).',
      },
    },
  },
  {
    area: 'Exporters',
    codes: {
      FLOWAGG_ERR_EXPORT_UNKNOWN_KIND: { meaning: '`flowagg export KIND` or an enabled section names an exporter kind no module registered.', action: 'Use one of the kinds the message lists.' },
      FLOWAGG_ERR_EXPORT_NO_WORKER: {
        meaning: 'The consumer delivered a batch of a partition the export runner has no worker for; the batch is delivered again, never skipped.',
        action: 'A bug: report it with the log line (topic, partition, offset).',
      },
      FLOWAGG_ERR_CLICKHOUSE_CONFIG: { meaning: 'The clickHouse section names something that cannot work: a URL, a CA file, credentials.', action: 'Fix the clickHouse keys named. A URL flowagg cannot serve is refused with the configuration; a CA file or credentials fail the exporter\'s start, which is retried with backoff meanwhile (collection goes on).' },
      FLOWAGG_ERR_CLICKHOUSE_SCHEMA: { meaning: 'An existing flows table lacks columns the exporter inserts, or the schema could not be created.', action: 'Migrate the table (docs/exporters.md lists the columns) or let the exporter create it in a new database.' },
      FLOWAGG_ERR_CLICKHOUSE_UNAVAILABLE: { meaning: 'ClickHouse could not be reached or refused a request.', action: 'At start and during delivery it is retried with backoff and the /readyz detail says so; check the server and clickHouse.databaseURL.' },
      FLOWAGG_ERR_S3_CONFIG: { meaning: 'The s3Uploader section names something that cannot work: no bucket, a bucket that does not exist, no access.', action: 'Fix the s3Uploader keys or the credentials named. No bucket name is refused with the configuration; the others fail the exporter\'s start, which is retried with backoff meanwhile (collection goes on).' },
      FLOWAGG_ERR_S3_UNAVAILABLE: { meaning: 'S3 could not be reached or refused an upload.', action: 'At start and during delivery it is retried with backoff and the /readyz detail says so; check the endpoint and the bucket policy.' },
      FLOWAGG_ERR_FLOWLOG_IO: { meaning: 'The flow log file or its directory cannot be opened, written or synced (permissions, disk full, a bad path).', action: 'Fix flowLogger.path or the disk; delivery is retried meanwhile.' },
      FLOWAGG_ERR_IPFIX_EXPORT_CONNECT: { meaning: 'The IPFIX collector cannot be reached: name resolution, connection refused or timed out, TLS handshake.', action: 'Check flowCollector.address and the collector; retried with backoff meanwhile.' },
      FLOWAGG_ERR_IPFIX_EXPORT_TLS: { meaning: 'The TLS material of the IPFIX exporter (flowCollector.tls files or Secrets) is missing or unreadable.', action: 'Fix the files or Secrets named; the exporter\'s start is retried with backoff meanwhile.' },
      FLOWAGG_ERR_IPFIX_EXPORT_WRITE: { meaning: 'A send to the IPFIX collector failed part-way (reset, broken pipe); the batch is delivered again.', action: 'Nothing, unless it repeats: then check the collector and the network.' },
    },
  },
  {
    area: 'Kubernetes metadata',
    codes: {
      FLOWAGG_ERR_K8S_CONFIG_UNAVAILABLE: { meaning: 'No way to reach the Kubernetes API: no kubeconfig, and not in a Pod with a service account.', action: 'Set kubernetes.kubeconfig, run in a Pod, or turn kubernetes.enable off.' },
      FLOWAGG_ERR_K8S_INVENTORY_UNREADABLE: { meaning: 'The inventory file cannot be read or is not YAML/JSON.', action: 'Fix the path or the file\'s syntax.' },
      FLOWAGG_ERR_K8S_INVENTORY_INVALID: { meaning: "The inventory file's content is invalid; the message lists every problem with its entry and key.", action: 'Fix the entries named.' },
    },
  },
  {
    area: 'Simulation (flowagg simulate)',
    codes: {
      FLOWAGG_ERR_SIMULATE_CONNECT: { meaning: 'A simulated Node could not connect to the collector before the connect timeout.', action: 'Check the collector address and that flowagg ingest listens there.' },
      FLOWAGG_ERR_SIMULATE_INCOMPLETE: { meaning: 'A run that ended with records lost in transit or Nodes not connected.', action: 'Read the summary: lower the rate, or look at the collector\'s /readyz and metrics.' },
      FLOWAGG_ERR_SIMULATE_TLS_FILES: { meaning: 'The TLS material (CA, client certificate and key) cannot be read.', action: 'Fix the paths given.' },
    },
  },
];

/** Every code described, with its area. */
export function catalogueEntries(): { code: ErrorCode; area: string; entry: CodeEntry }[] {
  return ERROR_CATALOGUE.flatMap((a) => Object.entries(a.codes).map(([code, entry]) => ({ code: code as ErrorCode, area: a.area, entry })));
}
