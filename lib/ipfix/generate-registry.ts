// `npm run generate`: builds lib/ipfix/registry.generated.ts from the registries in
// ../shared/reference/registry/ (the IANA XML and Antrea's PEN 56506 CSV), plus the RFC 5103 reverse
// elements (PEN 29305). The IANA XML is regular (one <record> per element with <name>, <dataType> and
// <elementId> children), so a purpose-built extractor is enough and no XML library is needed.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AbstractType } from './types.js';

const registryDir = new URL('../../../shared/reference/registry/', import.meta.url);
const outFile = fileURLToPath(new URL('./registry.generated.ts', import.meta.url));

export const IANA_PEN = 0;
export const REVERSE_PEN = 29305;
export const ANTREA_PEN = 56506;
const VARIABLE = 65535;

/** RFC 5103 §6.1, as go-ipfix (registry.go nonReversibleIEs) applies it: these get no reverse twin. */
const NON_REVERSIBLE = new Set([
  'biflowDirection', 'collectorIPv4Address', 'collectorIPv6Address', 'collectorTransportPort', 'commonPropertiesId',
  'exportedMessageTotalCount', 'exportedOctetTotalCount', 'exportedFlowRecordTotalCount', 'exporterIPv4Address',
  'exporterIPv6Address', 'exporterTransportPort', 'exportInterface', 'exportProtocolVersion', 'exportTransportProtocol',
  'flowId', 'flowKeyIndicator', 'ignoredPacketTotalCount', 'ignoredOctetTotalCount', 'notSentFlowTotalCount',
  'notSentPacketTotalCount', 'notSentOctetTotalCount', 'observationDomainId', 'observedFlowTotalCount', 'paddingOctets',
  'templateId',
]);

const NATURAL_LENGTH: Record<AbstractType, number> = {
  octetArray: VARIABLE, unsigned8: 1, unsigned16: 2, unsigned32: 4, unsigned64: 8, signed8: 1, signed16: 2, signed32: 4,
  signed64: 8, float32: 4, float64: 8, boolean: 1, macAddress: 6, string: VARIABLE, dateTimeSeconds: 4,
  dateTimeMilliseconds: 8, dateTimeMicroseconds: 8, dateTimeNanoseconds: 8, ipv4Address: 4, ipv6Address: 16,
  basicList: VARIABLE, subTemplateList: VARIABLE, subTemplateMultiList: VARIABLE,
};

type Row = readonly [pen: number, id: number, name: string, type: AbstractType, length: number];

function abstractType(name: string, where: string): { type: AbstractType; length: number } {
  // unsigned256 (RFC 9710) has no place in the codec's value model: kept as its 32 raw bytes.
  if (name === 'unsigned256') return { type: 'octetArray', length: 32 };
  if (!(name in NATURAL_LENGTH)) throw new Error(`${where}: unknown abstract data type "${name}"`);
  const type = name as AbstractType;
  return { type, length: NATURAL_LENGTH[type] };
}

function tagText(record: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(record);
  return m?.[1]?.trim();
}

export function parseIanaXml(xml: string): Row[] {
  const start = xml.indexOf('<registry id="ipfix-information-elements">');
  const end = xml.indexOf('<registry id=', start + 1);
  if (start < 0 || end < 0) throw new Error('IANA XML: registry "ipfix-information-elements" not found');
  const rows: Row[] = [];
  for (const m of xml.slice(start, end).matchAll(/<record\b[^>]*>([\s\S]*?)<\/record>/g)) {
    const record = m[1] ?? '';
    const name = tagText(record, 'name');
    const dataType = tagText(record, 'dataType');
    const elementId = tagText(record, 'elementId');
    // Reserved and unassigned ranges ("105-127") have no data type: they are not elements.
    if (name === undefined || dataType === undefined || elementId === undefined || !/^\d+$/.test(elementId)) continue;
    const { type, length } = abstractType(dataType, `IANA element ${elementId} ${name}`);
    rows.push([IANA_PEN, Number(elementId), name, type, length]);
  }
  return rows;
}

export function parseAntreaCsv(csv: string): Row[] {
  const [header, ...lines] = csv.split(/\r?\n/).filter((l) => l.trim() !== '');
  const cols = (header ?? '').split(',');
  const col = (name: string) => {
    const i = cols.indexOf(name);
    if (i < 0) throw new Error(`Antrea CSV: column "${name}" missing`);
    return i;
  };
  const [idCol, nameCol, typeCol, penCol, sizeCol] = [col('ElementID'), col('Name'), col('Abstract Data Type'), col('Enterprise ID'), col('Data Size')];
  return lines.map((line) => {
    // The Antrea CSV has no quoted fields (descriptions are empty), so a plain split is exact.
    const f = line.split(',');
    const name = f[nameCol] ?? '';
    const { type, length } = abstractType(f[typeCol] ?? '', `Antrea element ${f[idCol]} ${name}`);
    const size = f[sizeCol]?.trim();
    return [Number(f[penCol]), Number(f[idCol]), name, type, size ? Number(size) : length] as const;
  });
}

export function reverseRows(iana: readonly Row[]): Row[] {
  return iana
    .filter(([, , name]) => !NON_REVERSIBLE.has(name))
    .map(([, id, name, type, length]) => [REVERSE_PEN, id, `reverse${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`, type, length] as const);
}

export function renderRegistry(rows: readonly Row[]): string {
  const body = rows.map((r) => `  ${JSON.stringify(r)},`).join('\n');
  return [
    '// generated by lib/ipfix/generate-registry.ts, do not edit',
    '// Sources: ../shared/reference/registry/iana-ipfix-information-elements.xml, antrea-ipfix-information-elements.csv,',
    `// RFC 5103 reverse elements (PEN ${REVERSE_PEN}). Row: [pen, id, name, abstract data type, default length (65535 = variable)].`,
    "import { type AbstractType } from './types.js';",
    '',
    'export const IE_ROWS: readonly (readonly [number, number, string, AbstractType, number])[] = [',
    body,
    '];',
    '',
  ].join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  const iana = parseIanaXml(readFileSync(new URL('iana-ipfix-information-elements.xml', registryDir), 'utf8'));
  const antrea = parseAntreaCsv(readFileSync(new URL('antrea-ipfix-information-elements.csv', registryDir), 'utf8'));
  const rows = [...iana, ...reverseRows(iana), ...antrea];
  writeFileSync(outFile, renderRegistry(rows));
  console.log(`wrote ${outFile}: ${iana.length} IANA, ${rows.length - iana.length - antrea.length} reverse, ${antrea.length} Antrea elements`);
}
