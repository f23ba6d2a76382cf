export * from '../shared/markers.js';
