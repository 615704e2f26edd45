/**
 * Waybill's test support: {@link dev.waybill.test.AutoConfigureWaybillTest @AutoConfigureWaybillTest}
 * gives a {@code @SpringBootTest} the {@link dev.waybill.test.WaybillTestHarness}, which observes
 * what the application published, relayed and consumed, waits for it, and delivers messages to its
 * handlers as the broker would; {@link dev.waybill.test.InMemoryTransport} runs the relay and the
 * inbox without a broker.
 */
@NullMarked
package dev.waybill.test;

import org.jspecify.annotations.NullMarked;
