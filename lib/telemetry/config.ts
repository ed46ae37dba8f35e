// Antrea's `apiServer` section: the HTTP server of every service (/metrics, /healthz, /readyz,
// /recordmetrics, /flowrecords and the log API the CLI uses while a service holds the embedded log).
import { z } from 'zod';
import { port } from '../config/types.js';

const HTTPS_NOTE = "accepted as Antrea's key and unused: flowagg's API server speaks plain HTTP (put it behind a TLS proxy where that matters)";

export const apiServerSection = z
  .strictObject({
    apiPort: port.default(10348).describe("The HTTP port of /metrics, /healthz, /readyz, /recordmetrics and the log API (Antrea's apiServer port)."),
    bindAddress: z.string().default('').describe('The address the HTTP server binds; "" is every address.'),
    tlsCipherSuites: z.string().optional().meta({ description: "Antrea's cipher suites of its HTTPS API server.", note: HTTPS_NOTE }),
    tlsMinVersion: z.string().optional().meta({ description: "Antrea's minimum TLS version of its HTTPS API server.", note: HTTPS_NOTE }),
  })
  .prefault({});

export type ApiServerConfig = z.output<typeof apiServerSection>;
