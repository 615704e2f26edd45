/**
 * The sample billing service: a consumer that bills each order once through Waybill's inbox, with
 * retries, an error queue and a consumer outbox.
 */
@NullMarked
package dev.waybill.samples.billing;

import org.jspecify.annotations.NullMarked;
