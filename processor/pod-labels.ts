// Pod labels as Antrea exports them (reference §2.4): the label map as a JSON object with its keys sorted
// (Go's encoding/json sorts map keys), "{}" for a Pod without labels, "" when the side is not a Pod, the
// Pod is unknown, or labels are not wanted (recordContents.podLabels off).
import { type PodInfo } from '../lib/k8s/metadata.js';

export function podLabelsJson(pod: PodInfo | undefined): string {
  if (pod === undefined) return '';
  const labels = pod.labels;
  const keys = Object.keys(labels).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${JSON.stringify(labels[keys[i]!])}`;
  return `${out}}`;
}
