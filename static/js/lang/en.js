// The whole English table: `i18n/en.js` and the tables beside it, in one module
// so that a page loads only its reader's language (i18n.js).
import en from '../i18n/en.js';
import enGames from '../i18n/en-games.js';
import enPlay from '../i18n/en-play.js';
import enAccount from '../i18n/en-account.js';
import enLearn from '../i18n/en-learn.js';
import enMod from '../i18n/en-mod.js';
import enAnalysis from '../i18n/en-analysis.js';
import enControls from '../i18n/en-controls.js';
import enReview from '../i18n/en-review.js';
import enErrors from '../i18n/en-errors.js';

export default {
  ...en, ...enGames, ...enPlay, ...enAccount, ...enLearn, ...enMod, ...enAnalysis, ...enControls, ...enReview, ...enErrors,
};
