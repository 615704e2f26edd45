/**
 * The contract between the inbox and a transport's receive endpoint: the endpoint finds the
 * consumer of a delivery ({@link dev.waybill.inbox.spi.ConsumerRegistry}), hands it to the
 * {@link dev.waybill.inbox.spi.DeliveryProcessor} and settles it as the
 * {@link dev.waybill.inbox.spi.DeliveryResult} says, moving what the database cannot record to the
 * error queue itself ({@link dev.waybill.inbox.spi.UnrecordableDeliveryException},
 * {@link dev.waybill.inbox.spi.ForwardedHeaders}).
 */
@NullMarked
package dev.waybill.inbox.spi;

import org.jspecify.annotations.NullMarked;
