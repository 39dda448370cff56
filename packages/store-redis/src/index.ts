export { RedisResponseStore, type RedisStoreOptions } from './store.js';
export { RedisQuota } from './quota.js';
