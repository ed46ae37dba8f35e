// The routes every Antrea API server has besides its own: GET /loglevel (the verbosity, a JSON number),
// PUT /loglevel?level=N (sets it, answers with no body, as Antrea), GET /version (Kubernetes' version.Info,
// which antctl's version command reads: gitVersion is the program's version).
import { NO_BODY, type TelemetryServer } from '../telemetry/http.js';
import { currentVerbosity, setVerbosity } from '../telemetry/log-level.js';

class BadRequest extends Error {
  readonly status = 400;
}

export function serveAntreaRoutes(http: TelemetryServer, version: string): void {
  http.addJsonRoute('/loglevel', (url) => {
    if (url.searchParams.has('level')) throw new BadRequest('the log level is set with PUT /loglevel?level=N');
    return currentVerbosity();
  });
  http.addPutRoute('/loglevel', (url) => {
    const level = url.searchParams.get('level') ?? '';
    if (level === '') return currentVerbosity();
    const set = setVerbosity(level);
    if (!set.ok) throw new BadRequest(set.message);
    return NO_BODY;
  });
  http.addJsonRoute('/version', () => versionInfo(version));
}

/** k8s.io/apimachinery's version.Info for a semantic version "1.2.3". */
function versionInfo(version: string) {
  const [major = '0', minor = '0'] = version.split('.');
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return { major, minor, gitVersion: `v${version}`, gitCommit: '', gitTreeState: '', buildDate: '', goVersion: '', compiler: `node ${process.version}`, platform: `${process.platform}/${arch}` };
}
