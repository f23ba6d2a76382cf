export * from '../shared/terms.js';
