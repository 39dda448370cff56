/**
 * The Redis response store of the reference server: several server instances share one set of stored
 * responses, and tenants' quotas hold across them.
 *
 * @packageDocumentation
 */
export { RedisResponseStore, type RedisStoreOptions } from './store.js';
export { RedisQuota } from './quota.js';
