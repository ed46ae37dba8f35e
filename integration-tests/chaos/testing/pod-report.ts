// What a pod's runs say for a chaos run's report: a stop that did not end in exit 0, the warnings a pod
// logged last (for a run that did not drain).
import { type Pod, REPORT_DIR } from './pod.js';

/** What a stop's outcome says is wrong: nothing for exit 0. */
export function stopProblems(name: string, code: number | null | 'hung'): string[] {
  if (code === 0) return [];
  return [code === 'hung' ? `${name} had not exited 30 s after SIGTERM (its diagnostic report is in ${REPORT_DIR})` : `${name} exited ${code ?? 'on a signal'}`];
}

/** Each pod's last warnings and errors (its current or last run's), for a run that did not drain. */
export function lastWarnings(pods: Iterable<Pod>): string[] {
  return [...pods].map((p) => {
    const lines = (p.logs().at(-1) ?? '').split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-6);
    return `${p.name} (${p.state}, ${p.starts} starts) last warnings:\n${lines.join('\n')}`;
  });
}
