/**
 * The demo: both sample services in one JVM, on an embedded PostgreSQL and AMQP broker unless told
 * otherwise, driven through a scenario that ends with a summary and an exit code.
 */
@NullMarked
package dev.waybill.samples.demo;

import org.jspecify.annotations.NullMarked;
