/**
 * The demo's second scenario ({@code ./demo --tenants}): one service whose tenants each have a
 * store of their own, a schema per tenant, from the invoice to its ledger entry.
 */
@NullMarked
package dev.waybill.samples.demo.tenants;

import org.jspecify.annotations.NullMarked;
