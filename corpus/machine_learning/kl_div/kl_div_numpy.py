"""kl_div: Kullback-Leibler divergence of B x N float32 target distributions from predicted
log-probabilities, summed over each row and averaged over the batch
(torch.nn.KLDivLoss(reduction='batchmean'))."""

import numpy as np


def initialize(rng, B, N):
    # Rows of predicted log-probabilities and of target probabilities, both softmaxes of
    # Gaussian scores, the targets' sharper by a factor drawn once per case (so the
    # divergence differs from case to case); computed in float64, then rounded. The targets
    # span 1e-16 to 1: within float32's range, below float16's.
    a = rng.standard_normal((B, N))
    a = a - np.max(a, axis=1, keepdims=True)
    logprob = a - np.log(np.sum(np.exp(a), axis=1, keepdims=True))
    s = rng.uniform(2.0, 4.0) * rng.standard_normal((B, N))
    p = np.exp(s - np.max(s, axis=1, keepdims=True))
    target = p / np.sum(p, axis=1, keepdims=True)
    return {"logprob": logprob.astype(np.float32), "target": target.astype(np.float32)}


def kl_div(logprob, target, B, N):
    # loss = (1 / B) sum_{b, n} target[b, n] (log target[b, n] - logprob[b, n]): each row's
    # divergence, then their mean.
    rowsum = np.empty(B, dtype=np.float32)
    rowsum[:] = np.sum(target * (np.log(target) - logprob), axis=1)
    return np.sum(rowsum) / B
