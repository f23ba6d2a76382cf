// Experiment (not shipped; docs/embeddings.md): a D x D linear map fitted on self-supervised pairs
// (pairs.ts) with a symmetric in-batch contrastive loss (InfoNCE), applied to the model's normalised
// output. It would fold into the graph's existing projection matrix at no inference cost.
import { rng } from '../lib/rng.js';
export interface FitOpts {
  epochs: number;
  batch: number;
  lr: number;
  /** Softmax temperature. */
  tau: number;
  /** L2 pull of W towards the identity. */
  lambda: number;
  seed: number;
}

export const DEFAULT_FIT: FitOpts = { epochs: 30, batch: 256, lr: 2e-3, tau: 0.05, lambda: 1e-3, seed: 1 };


/** z = x W (x: 1 x D, W row-major D x D). */
function apply(x: ArrayLike<number>, W: Float64Array, D: number, out: Float64Array): void {
  out.fill(0);
  for (let i = 0; i < D; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const row = i * D;
    for (let j = 0; j < D; j++) out[j]! += xi * W[row + j]!;
  }
}

/** Fit W (row-major D x D, identity start) so that a_i W and b_i W point the same way. */
export function fitProjection(A: readonly Float32Array[], B: readonly Float32Array[], D: number, o: FitOpts = DEFAULT_FIT): Float64Array {
  const W = new Float64Array(D * D);
  for (let i = 0; i < D; i++) W[i * D + i] = 1;
  const m = new Float64Array(D * D), v = new Float64Array(D * D);
  const rnd = rng(o.seed);
  const n = A.length;
  const order = Array.from({ length: n }, (_, i) => i);
  let step = 0;
  for (let ep = 0; ep < o.epochs; ep++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let s = 0; s + 1 < n; s += o.batch) {
      const idx = order.slice(s, s + o.batch);
      const bs = idx.length;
      const za = idx.map(() => new Float64Array(D)), zb = idx.map(() => new Float64Array(D));
      const na = new Float64Array(bs), nb = new Float64Array(bs);
      idx.forEach((k, r) => {
        apply(A[k]!, W, D, za[r]!);
        apply(B[k]!, W, D, zb[r]!);
        na[r] = Math.hypot(...za[r]!) || 1;
        nb[r] = Math.hypot(...zb[r]!) || 1;
      });
      const ua = za.map((z, r) => z.map((x) => x / na[r]!)), ub = zb.map((z, r) => z.map((x) => x / nb[r]!));
      // S = ua ub^T / tau; loss = CE over rows (a -> b) + CE over columns (b -> a), averaged.
      const S = new Float64Array(bs * bs);
      for (let r = 0; r < bs; r++)
        for (let c = 0; c < bs; c++) {
          let d = 0;
          for (let k = 0; k < D; k++) d += ua[r]![k]! * ub[c]![k]!;
          S[r * bs + c] = d / o.tau;
        }
      const G = new Float64Array(bs * bs); // dLoss/dS
      for (let r = 0; r < bs; r++) {
        let mx = -Infinity;
        for (let c = 0; c < bs; c++) mx = Math.max(mx, S[r * bs + c]!);
        let z = 0;
        for (let c = 0; c < bs; c++) z += Math.exp(S[r * bs + c]! - mx);
        for (let c = 0; c < bs; c++) G[r * bs + c]! += (Math.exp(S[r * bs + c]! - mx) / z - (r === c ? 1 : 0)) / (2 * bs);
      }
      for (let c = 0; c < bs; c++) {
        let mx = -Infinity;
        for (let r = 0; r < bs; r++) mx = Math.max(mx, S[r * bs + c]!);
        let z = 0;
        for (let r = 0; r < bs; r++) z += Math.exp(S[r * bs + c]! - mx);
        for (let r = 0; r < bs; r++) G[r * bs + c]! += (Math.exp(S[r * bs + c]! - mx) / z - (r === c ? 1 : 0)) / (2 * bs);
      }
      const grad = new Float64Array(D * D);
      const back = (x: ArrayLike<number>, u: Float64Array, nz: number, du: Float64Array) => {
        // through normalisation: dz = (du - u (u . du)) / |z|; then dW += x^T dz
        let ud = 0;
        for (let k = 0; k < D; k++) ud += u[k]! * du[k]!;
        for (let i = 0; i < D; i++) {
          const xi = x[i]!;
          if (xi === 0) continue;
          for (let j = 0; j < D; j++) grad[i * D + j]! += (xi * (du[j]! - u[j]! * ud)) / nz;
        }
      };
      for (let r = 0; r < bs; r++) {
        const dua = new Float64Array(D), dub = new Float64Array(D);
        for (let c = 0; c < bs; c++) {
          const g1 = G[r * bs + c]! / o.tau, g2 = G[c * bs + r]! / o.tau;
          for (let k = 0; k < D; k++) {
            dua[k]! += g1 * ub[c]![k]!;
            dub[k]! += g2 * ua[c]![k]!;
          }
        }
        back(A[idx[r]!]!, ua[r]!, na[r]!, dua);
        back(B[idx[r]!]!, ub[r]!, nb[r]!, dub);
      }
      for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) grad[i * D + j]! += 2 * o.lambda * (W[i * D + j]! - (i === j ? 1 : 0));
      // Adam
      step++;
      const b1 = 0.9, b2 = 0.999;
      for (let p = 0; p < D * D; p++) {
        m[p] = b1 * m[p]! + (1 - b1) * grad[p]!;
        v[p] = b2 * v[p]! + (1 - b2) * grad[p]! * grad[p]!;
        const mh = m[p]! / (1 - b1 ** step), vh = v[p]! / (1 - b2 ** step);
        W[p]! -= (o.lr * mh) / (Math.sqrt(vh) + 1e-8);
      }
    }
  }
  return W;
}

/** normalise(x W) for a batch of vectors. */
export function projectAll(X: readonly Float32Array[], W: Float64Array, D: number): Float32Array[] {
  const z = new Float64Array(D);
  return X.map((x) => {
    apply(x, W, D, z);
    const nz = Math.hypot(...z) || 1;
    return Float32Array.from(z, (t) => t / nz);
  });
}
