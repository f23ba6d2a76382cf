import { scanSkill, type SkillScanInput } from './scan.js';

/** Pool tasks of the community skills: the static scan of a SKILL.md (bodies may be large). */
export const skillTasks = {
  scanSkill: (i: SkillScanInput) => scanSkill(i),
};
