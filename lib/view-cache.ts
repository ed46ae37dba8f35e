// A DataView of the buffer asked for last, made again only when the buffer changes: writers write many
// values into one buffer, and readers read many records from one batch, so a view per call would be
// garbage per value. Each user keeps its own cache, so that two buffers in turn do not evict each other.
export class ViewCache {
  private target: Uint8Array | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  of(b: Uint8Array): DataView {
    if (b !== this.target) {
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
      this.target = b;
    }
    return this.view;
  }
}
