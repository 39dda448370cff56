export { describeStoreContract, sampleEntry, type StoreContractOptions } from './store-contract.js';
export { describeTenantIsolation, socketTurn, type IsolationTarget } from './isolation.js';
export { startReplayUpstream, type ReplayUpstream, type ReceivedRequest } from './replay-upstream.js';
