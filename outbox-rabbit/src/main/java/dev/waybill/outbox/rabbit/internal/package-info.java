/**
 * The RabbitMQ transport and receive endpoint: publishing with confirms and returns, consuming into the inbox, topology and error queues.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.rabbit.internal;

import org.jspecify.annotations.NullMarked;
