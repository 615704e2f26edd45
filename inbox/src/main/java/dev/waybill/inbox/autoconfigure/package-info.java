/**
 * Spring Boot auto-configuration of the inbox: {@code waybill.inbox.*} properties, the inbox
 * processor and the registry of every {@link dev.waybill.inbox.MessageHandler} bean.
 */
@NullMarked
package dev.waybill.inbox.autoconfigure;

import org.jspecify.annotations.NullMarked;
