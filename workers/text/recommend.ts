export * from '../shared/recommend.js';
