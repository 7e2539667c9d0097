export { createApp, createOperatorApp, type ApiDeps } from './app';
