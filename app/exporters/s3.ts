// The S3 uploader as the CLI knows it: the s3Uploader section, the AWS SDK's credential chain, the
// cluster UUID from the cluster when running in a Pod.
import type { ServiceConfig } from '../service-config.js';
import type { ExporterModule } from './registry.js';
import { clusterUuidSource } from '../../exporters/row/in-cluster.js';
import { createS3Exporter } from '../../exporters/s3/index.js';

export const s3ExporterModule: ExporterModule<ServiceConfig> = {
  kind: 's3',
  section: 's3Uploader',
  enabled: (c) => c.s3Uploader.enable,
  create: (c, deps) => {
    const clusterUuid = clusterUuidSource(c.kubernetes);
    return createS3Exporter(c.s3Uploader, { ...(clusterUuid && { clusterUuid }), ...(deps.logger && { logger: deps.logger }) });
  },
};
