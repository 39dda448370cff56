export { RedisResponseStore, type RedisStoreOptions } from './store.js';
