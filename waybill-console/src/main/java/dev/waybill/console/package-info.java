/**
 * The operations console: the Actuator endpoint {@code waybill} ({@link dev.waybill.console.WaybillEndpoint},
 * with writes {@link dev.waybill.console.WaybillWritableEndpoint}) and the consumer side it shows
 * ({@link dev.waybill.console.ConsumerSide}). The page is a static resource under
 * {@code META-INF/resources/waybill}.
 */
@NullMarked
package dev.waybill.console;

import org.jspecify.annotations.NullMarked;
