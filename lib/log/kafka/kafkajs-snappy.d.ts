// kafkajs-snappy ships no types: its default export is the codec factory kafkajs expects in CompressionCodecs.
declare module 'kafkajs-snappy' {
  const SnappyCodec: () => {
    compress(encoder: { buffer: Buffer }): Promise<Buffer>;
    decompress(buffer: Buffer): Promise<Buffer>;
  };
  export default SnappyCodec;
}
