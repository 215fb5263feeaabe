"""Operations built on the store, the index and policy, one module per verb family: remember,
retraction, forgetting, purge, sync and propose, branch review, the merge driver, the demo."""
