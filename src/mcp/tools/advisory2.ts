import { cacheAdvisoryTools } from './cacheAdvisory.js';
import { compressionInsightTools } from './compressionInsight.js';
import { providerAdviceTools } from './providerAdvice.js';

/** Issue 22's tools: prompt-cache advisory, provider/context/resource advice, compression insight. */
export const advisory2Tools = [...cacheAdvisoryTools, ...providerAdviceTools, ...compressionInsightTools];
