/**
 * Spring Boot auto-configuration of the operations console and its {@code waybill.admin.*} properties.
 */
@NullMarked
package dev.waybill.console.autoconfigure;

import org.jspecify.annotations.NullMarked;
