// onnxruntime-node session with settings for a pool worker: the pool provides parallelism,
// so each session runs single-threaded rather than fighting the other workers for cores.
import * as ort from 'onnxruntime-node';

export type Session = ort.InferenceSession;
export { ort };

export async function createSession(modelPath: string, threads = 1): Promise<Session> {
  return ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}
