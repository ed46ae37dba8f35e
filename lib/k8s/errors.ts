// Error codes of Kubernetes metadata (the API client's own is in client.ts).
export const K8S_ERR = {
  /** The inventory file cannot be read or is not YAML/JSON. */
  INVENTORY_UNREADABLE: 'FLOWAGG_ERR_K8S_INVENTORY_UNREADABLE',
  /** The inventory file's content is invalid; the message lists every problem with its entry and key. */
  INVENTORY_INVALID: 'FLOWAGG_ERR_K8S_INVENTORY_INVALID',
} as const;
