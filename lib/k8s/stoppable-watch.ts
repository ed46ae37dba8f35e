// @kubernetes/client-node's ListWatch.stop() aborts only a watch whose request the API server has answered:
// a watch still waiting for its answer when stop() is called opens afterwards and is never aborted, and its
// open request keeps the process alive after every service stopped. This Watch aborts such a watch as soon as
// it opens.
import { type KubeConfig, Watch } from '@kubernetes/client-node';

export class StoppableWatch extends Watch {
  #stopped = false;

  constructor(kubeConfig: KubeConfig) {
    super(kubeConfig);
  }

  override async watch(...args: Parameters<Watch['watch']>): Promise<AbortController> {
    const request = await super.watch(...args);
    if (this.#stopped) request.abort();
    return request;
  }

  /** From now on every watch that opens is aborted; call before the ListWatch's stop(). */
  stop(): void {
    this.#stopped = true;
  }

  /** Watches stay open again (an informer started after a stop). */
  resume(): void {
    this.#stopped = false;
  }
}
