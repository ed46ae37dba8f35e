// The generated IE registry: IANA, RFC 5103 reverse and Antrea elements, and unknown elements.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAntreaCsv, parseIanaXml, renderRegistry, reverseRows } from './generate-registry.js';
import { ANTREA_PEN, REVERSE_PEN, elementByName, findElement, lookupElement } from './registry.js';

describe('IPFIX registry', () => {
  it('has the IANA, reverse and Antrea elements with their types and lengths', () => {
    assert.deepEqual(findElement(0, 8), { pen: 0, id: 8, name: 'sourceIPv4Address', type: 'ipv4Address', length: 4 });
    assert.deepEqual(findElement(REVERSE_PEN, 1), { pen: REVERSE_PEN, id: 1, name: 'reverseOctetDeltaCount', type: 'unsigned64', length: 8 });
    assert.deepEqual(elementByName('sourcePodName'), { pen: ANTREA_PEN, id: 101, name: 'sourcePodName', type: 'string', length: 65535 });
    assert.equal(elementByName('sourcePodUUID')?.length, 16, 'Antrea Data Size overrides the variable length');
    assert.equal(elementByName('flowEndSecondsFromSourceNode')?.type, 'dateTimeSeconds');
    assert.equal(elementByName('subTemplateMultiList')?.id, 293);
  });

  it('gives no reverse twin to the RFC 5103 §6.1 non-reversible elements', () => {
    for (const name of ['paddingOctets', 'observationDomainId', 'templateId', 'flowId', 'exporterIPv4Address', 'biflowDirection']) {
      const ie = elementByName(name);
      assert.ok(ie, name);
      assert.equal(findElement(REVERSE_PEN, ie.id), undefined, `no reverse ${name}`);
    }
    assert.equal(findElement(REVERSE_PEN, 210), undefined);
    assert.equal(findElement(REVERSE_PEN, 8)?.name, 'reverseSourceIPv4Address');
  });

  it('names unknown elements e<pen>.<id>, as octetArray, and finds them by that name', () => {
    const ie = lookupElement(6871, 40);
    assert.deepEqual(ie, { pen: 6871, id: 40, name: 'e6871.40', type: 'octetArray', length: 65535 });
    assert.equal(lookupElement(6871, 40), ie, 'one object per unknown element');
    assert.equal(elementByName('e6871.40'), ie);
    assert.equal(elementByName('noSuchElement'), undefined);
  });

  it('is what the generator makes from the registry sources (npm run check:generated)', () => {
    const dir = new URL('../../../shared/reference/registry/', import.meta.url);
    const iana = parseIanaXml(readFileSync(new URL('iana-ipfix-information-elements.xml', dir), 'utf8'));
    const antrea = parseAntreaCsv(readFileSync(new URL('antrea-ipfix-information-elements.csv', dir), 'utf8'));
    assert.ok(iana.length > 500);
    assert.equal(antrea.length, 73);
    const generated = readFileSync(new URL('registry.generated.ts', import.meta.url), 'utf8');
    assert.equal(generated, renderRegistry([...iana, ...reverseRows(iana), ...antrea]));
  });
});
