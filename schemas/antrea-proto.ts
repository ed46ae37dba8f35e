// Antrea's flow protobuf schema (schemas/proto/flow.proto and service.proto), loaded with protobufjs's
// reflection: the message types for the reference codec and the flow stream's encoder, and the field
// numbers the collector's own decoder is built from, so that the .proto files are the only list of them.
import protobuf from 'protobufjs';

export const ANTREA_FLOW_PACKAGE = 'antrea_io.antrea.pkg.apis.flow.v1alpha1';
export const EXPORT_PATH = `/${ANTREA_FLOW_PACKAGE}.FlowExportService/Export`;
export const GET_FLOWS_PATH = `/${ANTREA_FLOW_PACKAGE}.FlowStreamService/GetFlows`;

const PROTO_DIR = new URL('./proto/', import.meta.url);

/**
 * The schema: both files, with google/protobuf/timestamp.proto from protobufjs's bundled well-known types.
 * Field names are kept as the .proto spells them (source_pod_name, not sourcePodName).
 */
export const ANTREA_PROTO: protobuf.Root = new protobuf.Root().loadSync(['flow.proto', 'service.proto'].map((f) => new URL(f, PROTO_DIR).pathname), { keepCase: true });

/** Field numbers of a message type, by field name. */
export function fieldNumbers(type: string): Readonly<Record<string, number>> {
  return Object.fromEntries(Object.values(antreaType(type).fields).map((f) => [f.name, f.id]));
}

/** A message type of the package, by its short name (Flow, ExportRequest, GetFlowsRequest, ...). */
export function antreaType(name: string): protobuf.Type {
  return ANTREA_PROTO.lookupType(`${ANTREA_FLOW_PACKAGE}.${name}`);
}

export function antreaEnum(name: string): protobuf.Enum {
  return ANTREA_PROTO.lookupEnum(`${ANTREA_FLOW_PACKAGE}.${name}`);
}
