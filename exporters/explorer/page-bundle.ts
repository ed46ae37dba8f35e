// The page's script and style sheet, bundled from page/ with esbuild: uPlot and d3-force inside, so the
// page asks nothing of any other server. `npm run build` writes the bundle beside the compiled program
// (scripts/build.ts); running the TypeScript sources, the explorer bundles it at start (static.ts).
// esbuild is a dev dependency, as tsx (which runs the sources) is: a production install has the build.
import { fileURLToPath } from 'node:url';

/** The bundle's files, and what they are. */
export const PAGE_FILES = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' } as const;

export type PageBundle = Readonly<Record<keyof typeof PAGE_FILES, Buffer>>;

export async function bundlePage(): Promise<PageBundle> {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      entryPoints: { app: fileURLToPath(new URL('./page/main.ts', import.meta.url)) },
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      write: false,
      outdir: 'bundle',
      legalComments: 'eof',
      logLevel: 'silent',
    });
    const file = (name: string) => Buffer.from(result.outputFiles.find((f) => f.path.endsWith(`/${name}`))!.contents);
    return { 'app.js': file('app.js'), 'app.css': file('app.css') };
  } finally {
    // esbuild's service process is of no use once the bundle is made.
    await esbuild.stop();
  }
}
