export { DISPATCHER_QUEUE, startDispatcher, type Dispatcher, type DispatcherDeps } from './dispatcher';
