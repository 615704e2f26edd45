/**
 * Waybill's inbox: implement {@link dev.waybill.inbox.MessageHandler} and each message is handled
 * once per consumer in effect, in one transaction with the business rows and the messages the
 * handler publishes; failures retry with backoff and end in the consumer's error queue.
 */
@NullMarked
package dev.waybill.inbox;

import org.jspecify.annotations.NullMarked;
