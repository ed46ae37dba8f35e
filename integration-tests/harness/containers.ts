// The container runtime of the tests: whether a Docker engine answers, flowagg's locally built images
// (infra/images/build: no registry is reachable, every image is built here and cached by content), and
// Testcontainers set up to use them, with flowagg/reaper in place of Ryuk so that what a crashed run
// started is removed too (docs/containers.md).
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type * as Testcontainers from 'testcontainers';
import type { ApiTarget } from '../../lib/apiserver/client.js';

const run = promisify(execFile);
const BUILD = join(import.meta.dirname, '..', '..', 'infra', 'images', 'build');

export type LocalImageName = 'base' | 'node' | 'kafka' | 'clickhouse' | 'reaper' | 'flowagg';

/**
 * Labels of everything a test creates in the engine. .ci/run sets FLOWAGG_TEST_RUN and removes, at its
 * end, what carries its run's label (and nothing else: the engine is shared).
 */
export const RUN_LABELS: Readonly<Record<string, string>> = { 'org.flowagg.test-run': process.env.FLOWAGG_TEST_RUN ?? 'local' };

let engine: Promise<string | undefined> | undefined;

/** The name of the machine the Docker engine runs on, or undefined when none answers (asked once). */
function engineHost(): Promise<string | undefined> {
  engine ??= run('docker', ['info', '--format', '{{.Name}}'], { timeout: 20_000 }).then(
    ({ stdout }) => stdout.trim(),
    () => undefined,
  );
  return engine;
}

/** Whether a Docker engine answers (with the docker CLI the image builds use). */
export async function containerRuntimeAnswers(): Promise<boolean> {
  return (await engineHost()) !== undefined;
}

const images = new Map<LocalImageName, Promise<string>>();

/** The reference of a locally built image, built first (with its parents) when its inputs are new. */
export function localImage(name: LocalImageName, log: (line: string) => void): Promise<string> {
  let ref = images.get(name);
  if (ref === undefined) {
    ref = (async () => {
      log(`infra/images/build ${name} (cached by content; a first build takes minutes)`);
      try {
        const { stdout } = await run(BUILD, [name], { maxBuffer: 16 * 2 ** 20, timeout: 1_800_000 });
        return stdout.trim().split('\n').pop()!;
      } catch (err) {
        const stderr = (err as { stderr?: string }).stderr ?? '';
        throw new Error(`infra/images/build ${name} failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
      }
    })();
    images.set(name, ref);
  }
  return ref;
}

/**
 * The testcontainers module, its reaper being flowagg/reaper: Testcontainers reads RYUK_CONTAINER_IMAGE
 * once, when it loads, so every use of Testcontainers goes through here (scripts/test.ts also sets it for
 * the test processes).
 */
export async function testcontainers(log: (line: string) => void): Promise<typeof Testcontainers> {
  if (process.env.RYUK_CONTAINER_IMAGE === undefined && process.env.TESTCONTAINERS_RYUK_DISABLED !== 'true') {
    process.env.RYUK_CONTAINER_IMAGE = await localImage('reaper', log);
  }
  // This machine's image carries /.dockerenv, so Testcontainers takes the tests to be in a container and
  // reaches published ports through the bridge's gateway; when the engine runs on this very machine they
  // are on the loopback.
  if (process.env.TESTCONTAINERS_HOST_OVERRIDE === undefined && (await engineHost()) === hostname()) {
    process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
  }
  return import('testcontainers');
}

/** A container's network and its name there (its alias), for services that talk to each other. */
export interface OnNetwork {
  readonly name: string;
  readonly alias: string;
}

/**
 * A container definition of a locally built image, labelled with the test run, on `network` under its
 * alias when one is given; with the Wait strategies of the same Testcontainers module.
 */
export async function localContainer(
  name: LocalImageName,
  log: (line: string) => void,
  network?: OnNetwork,
): Promise<{ container: Testcontainers.GenericContainer; Wait: typeof Testcontainers.Wait; image: string }> {
  const image = await localImage(name, log);
  const { GenericContainer, Wait } = await testcontainers(log);
  const container = new GenericContainer(image).withLabels(RUN_LABELS).withStartupTimeout(120_000);
  if (network !== undefined) container.withNetworkMode(network.name).withNetworkAliases(network.alias);
  return { container, Wait, image };
}

/** The host address of a container's published port, as an IPv4 literal when it is the loopback. */
export function hostOf(container: { getHost(): string }): string {
  const host = container.getHost();
  return host === 'localhost' ? '127.0.0.1' : host;
}

/**
 * Whether a test that needs containers runs. Without a runtime it is skipped with the reason, except in
 * CI, where that is a failure: CI has the runtime, and never passes by skipping.
 */
export async function containersForTests(): Promise<{ skip: false } | { skip: string }> {
  if (await containerRuntimeAnswers()) return { skip: false };
  if (process.env.CI === 'true') throw new Error('no container runtime answers in CI: .ci/run starts the Docker engine (infra/dev/docker start)');
  return { skip: 'no container runtime answers (infra/dev/docker start starts one)' };
}

/** Where the product image's API server writes its loopback token (data/ under its working directory, outside a Pod). */
const IMAGE_TOKEN_FILE = '/var/lib/flowagg/data/apiserver/loopback-client-token';

/**
 * A product container's API (port 10348, HTTPS with a configuration file) as antctl reaches it in the
 * Pod: the loopback token, read inside the container, and the self-signed certificate not verified.
 */
export async function containerApi(container: Testcontainers.StartedTestContainer): Promise<ApiTarget> {
  const token = await container.exec(['cat', IMAGE_TOKEN_FILE]);
  if (token.exitCode !== 0) throw new Error(`no loopback token in the container: ${token.output}`);
  return { url: `https://${hostOf(container)}:${container.getMappedPort(10348)}`, token: token.stdout.trim(), insecure: true };
}
