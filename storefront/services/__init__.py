"""The storefront's business rules, one module per aggregate: plain functions with
explicit arguments, each change in one transaction, refusals raised as the plain errors
of `storefront.errors`. No HTTP and no DRF here: the API, the owner's pages, the admin,
the commands and the tasks call the same functions."""
