// Public surface of the community module. Other modules import only this.
export { CommunityService, communityFilePath, COMMUNITY_VARIANTS, UPLOADER_SHARE_PERCENT, INGEST_PUBLIC_MAX_SIDE, type CommunityItem, type Analyzer } from './community.service.js';
export { ClaimsService, type OwnershipClaim } from './claims.service.js';
export { communityItemPolicy, ownershipClaimPolicy, visibleCoordinate } from './community.access.js';
export { confirmTags, ocrWords, normaliseWord, slugify, subjectKey, subjectKeys, showsPicture, SUBJECT_EVIDENCE, type TagConfirmation, type TagEvidence } from './tag-confirmation.js';
export { SUBJECT_CHECK_SQL, showsSubjectSql, subjectCheckOf, subjectKeysOf, type Subject, type SubjectCheck } from './subject-evidence.js';
export { setupCommunity } from './community.setup.js';
