export * from './compatible.js';
