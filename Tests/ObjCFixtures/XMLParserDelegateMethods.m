/* A class implementing every method of GNUstep's NSXMLParserDelegate (NSXMLParser.h), each
   declared as the header declares it, compiled by gcc as Debian's GNUstep is: the encodings
   gcc records for them are the oracle for the ones clang's reading of the header gives. */
#import <Foundation/NSXMLParser.h>
#import <Foundation/NSObject.h>
#include "PrintMethods.h"

@interface XMLParserDelegateMethods : NSObject <NSXMLParserDelegate>
@end

@implementation XMLParserDelegateMethods
- (NSData *)parser:(NSXMLParser *)aParser
  resolveExternalEntityName:(NSString *)aName
                   systemID:(NSString *)aSystemID { return nil; }
- (void)parser:(NSXMLParser *)aParser
  didEndElement:(NSString *)anElementName
   namespaceURI:(NSString *)aNamespaceURI
  qualifiedName:(NSString *)aQualifierName {}
- (void)parser:(NSXMLParser *)aParser didEndMappingPrefix:(NSString *)aPrefix {}
- (void)parser:(NSXMLParser *)aParser
  didStartElement:(NSString *)anElementName
     namespaceURI:(NSString *)aNamespaceURI
    qualifiedName:(NSString *)aQualifierName
       attributes:(NSDictionary *)anAttributeDict {}
- (void)parser:(NSXMLParser *)aParser
  didStartMappingPrefix:(NSString *)aPrefix
                  toURI:(NSString *)aNamespaceURI {}
- (void)parser:(NSXMLParser *)aParser
  foundAttributeDeclarationWithName:(NSString *)anAttributeName
                         forElement:(NSString *)anElementName
                               type:(NSString *)aType
                       defaultValue:(NSString *)aDefaultValue {}
- (void)parser:(NSXMLParser *)aParser foundCDATA:(NSData *)aBlock {}
- (void)parser:(NSXMLParser *)aParser foundCharacters:(NSString *)aString {}
- (void)parser:(NSXMLParser *)aParser foundComment:(NSString *)aComment {}
- (void)parser:(NSXMLParser *)aParser
  foundElementDeclarationWithName:(NSString *)anElementName
                            model:(NSString *)aModel {}
- (void)parser:(NSXMLParser *)aParser
  foundExternalEntityDeclarationWithName:(NSString *)aName
                                publicID:(NSString *)aPublicID
                                systemID:(NSString *)aSystemID {}
- (void)parser:(NSXMLParser *)aParser foundIgnorableWhitespace:(NSString *)aWhitespaceString {}
- (void)parser:(NSXMLParser *)aParser
  foundInternalEntityDeclarationWithName:(NSString *)aName
                                   value:(NSString *)aValue {}
- (void)parser:(NSXMLParser *)aParser
  foundNotationDeclarationWithName:(NSString *)aName
                          publicID:(NSString *)aPublicID
                          systemID:(NSString *)aSystemID {}
- (void)parser:(NSXMLParser *)aParser
  foundProcessingInstructionWithTarget:(NSString *)aTarget
                                  data:(NSString *)aData {}
- (void)parser:(NSXMLParser *)aParser
  foundUnparsedEntityDeclarationWithName:(NSString *)aName
                                publicID:(NSString *)aPublicID
                                systemID:(NSString *)aSystemID
                            notationName:(NSString *)aNotationName {}
- (void)parser:(NSXMLParser *)aParser parseErrorOccurred:(NSError *)anError {}
- (void)parser:(NSXMLParser *)aParser validationErrorOccurred:(NSError *)anError {}
- (void)parserDidEndDocument:(NSXMLParser *)aParser {}
- (void)parserDidStartDocument:(NSXMLParser *)aParser {}
@end

int main(void) {
  print_protocol(@protocol(NSXMLParserDelegate));
  return print_methods("XMLParserDelegateMethods");
}
