/** Prepended to the daemon's tool names in VS Code (manifest.ToolPrefix in Go). */
export const ToolPrefix = "tether_";

/** Schemes of the documents the review UI opens. */
export const OriginalScheme = "tether-original";
export const ProposedScheme = "tether-proposed";
export const InfoScheme = "tether-info";

/** Context keys used in package.json's `when` clauses. */
export const ReviewingContext = "tether.reviewing";
export const HasPlanContext = "tether.hasPlan";

/** Opens the change waiting for review (the status bar entry runs it). */
export const OpenReviewCommand = "tether.openReview";
